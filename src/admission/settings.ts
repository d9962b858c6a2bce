/**
 * @module
 * Settings that change at runtime. The room starts from its options; the admin API writes overrides
 * and events to an unstorage storage that every worker reads again in the background, so a change made
 * anywhere is seen everywhere within one refresh. An active event's fields override both.
 */
import { z } from 'zod'
import { WaitingRoomError } from '../errors.ts'
import { eventPhaseAt, loadStoredEvents, normalizeEvents, type EventPhase, type RoomEvent } from './events.ts'
import { KeyedList, serialised } from './keyed-list.ts'
import type { QueueingMethod } from './plan.ts'
import { intRange } from './int-range.ts'

/** What the admin API may change at runtime; `null` removes an override, so the option's value applies again. */
export interface SettingsPatch {
  totalActiveUsers?: number | null | undefined
  newUsersPerMinute?: number | null | undefined
  sessionDurationMinutes?: number | null | undefined
  disableSessionRenewal?: boolean | null | undefined
  queueingMethod?: QueueingMethod | null | undefined
  queueAll?: boolean | null | undefined
  suspended?: boolean | null | undefined
  queueingStatusCode?: 200 | 202 | 429 | null | undefined
}

export const settingsPatchSchema: z.ZodType<SettingsPatch, SettingsPatch> = z.strictObject({
  totalActiveUsers: intRange(1, 10_000_000).nullish(),
  newUsersPerMinute: intRange(1, 10_000_000).nullish(),
  sessionDurationMinutes: intRange(1, 30).nullish(),
  disableSessionRenewal: z.boolean().nullish(),
  queueingMethod: z.enum(['fifo', 'random', 'passthrough', 'reject']).nullish(),
  queueAll: z.boolean().nullish(),
  suspended: z.boolean().nullish(),
  queueingStatusCode: z.union([z.literal(200), z.literal(202), z.literal(429)]).nullish(),
})

export interface RoomSettings {
  totalActiveUsers: number
  newUsersPerMinute: number
  sessionDurationMinutes: number
  disableSessionRenewal: boolean
  queueingMethod: QueueingMethod
  queueAll: boolean
  suspended: boolean
  queueingStatusCode: 200 | 202 | 429
  template: string | undefined
}

/** The settings in force at one moment, with the event phase they came from. */
export interface EffectiveSettings extends RoomSettings {
  phase: EventPhase
}

/**
 * Where runtime settings and events are kept: the two methods the room calls. An unstorage `Storage`
 * (`createStorage(...)`: fs, Redis, Cloudflare KV, Deno KV…) fits as is. Typed structurally rather than as
 * unstorage's `Storage` so the public types do not pull unstorage's driver typings (which need packages
 * most apps lack: a `skipLibCheck: false` build would fail) nor make unstorage a dependency.
 */
export interface SettingsStorage {
  /** The value stored under `key` (as JSON would bring it back), or null/undefined when there is none. */
  getItem(key: string): Promise<unknown>
  /** Stores a JSON-serialisable value under `key`. */
  setItem(key: string, value: unknown): Promise<void>
  /**
   * Optional, with `removeItem` (unstorage has both): the keys under `base`. With them each event and rule
   * added at runtime is kept under its own key, so writes made at once on several workers are all kept.
   */
  getKeys?(base: string): Promise<string[]>
  /** Optional, with `getKeys`: deletes `key`. */
  removeItem?(key: string): Promise<void>
}

/** The default storage: this process's memory. Values go through JSON, as unstorage's memory driver does. */
export function memorySettingsStorage(): SettingsStorage {
  const items = new Map<string, string>()
  return {
    getItem: async (key) => {
      const json = items.get(key)
      return json === undefined ? null : JSON.parse(json)
    },
    setItem: async (key, value) => {
      items.set(key, JSON.stringify(value))
    },
  }
}

/** The room settings an event may set; `suspended` is not one (a suspended event is ignored instead). */
export const EVENT_FIELDS = ['totalActiveUsers', 'newUsersPerMinute', 'sessionDurationMinutes', 'disableSessionRenewal', 'queueingMethod', 'queueingStatusCode', 'template'] as const

/** Storage keys: `waiting-room:<roomId>:settings`, `…:events` (a list) and `…:event:id-<id>` (one event each). */
const key = (roomId: string, what: 'settings' | 'events' | 'event') => `waiting-room:${roomId}:${what}`

export class SettingsSource {
  readonly roomId: string
  readonly storage: SettingsStorage
  readonly base: RoomSettings
  #overrides: SettingsPatch = {}
  #events: RoomEvent[]
  /** The events given as options: what the stored list starts from when none was ever written. */
  readonly #initialEvents: RoomEvent[]
  readonly #stored: KeyedList
  #effective: EffectiveSettings | undefined
  #computedAt = Number.NEGATIVE_INFINITY
  #loaded = false
  #loading: Promise<void> | undefined
  #lastLoadAt = Number.NEGATIVE_INFINITY
  readonly refreshMs: number

  constructor(roomId: string, base: RoomSettings, events: RoomEvent[], storage: SettingsStorage | undefined, refreshMs: number) {
    this.roomId = roomId
    this.base = base
    this.#events = events
    this.#initialEvents = events
    this.storage = storage ?? memorySettingsStorage()
    this.#stored = new KeyedList(this.storage, key(roomId, 'events'), key(roomId, 'event'))
    this.refreshMs = refreshMs
  }

  get loaded(): boolean {
    return this.#loaded
  }

  /** The settings in force at `now`, recomputed only when an override or the event phase changes. */
  at(now: number): EffectiveSettings {
    const effective = this.#effective
    // A clock that went back (tests, skew between calls) recomputes too.
    if (!effective || now >= effective.phase.validUntil || now < this.#computedAt) return this.#compute(now)
    return effective
  }

  /** Reads overrides and events from storage; on the first load, events given as options are kept when none are stored. */
  load(now: number): Promise<void> {
    this.#loading ??= (async () => {
      try {
        const [overrides, events] = await Promise.all([this.storage.getItem(key(this.roomId, 'settings')), this.#stored.read()])
        const patch = settingsPatchSchema.safeParse(overrides ?? {})
        if (patch.success) this.#overrides = patch.data
        else console.warn(`[hono-waiting-room] room "${this.roomId}": ignoring the stored settings overrides: ${patch.error.issues[0]?.message}`)
        // A stored event that fails validation is skipped with a warning; the others apply (never a lockout).
        if (events) this.#events = loadStoredEvents(events, this.roomId)
        this.#effective = undefined
      } finally {
        this.#loaded = true
        this.#lastLoadAt = now
        this.#loading = undefined
      }
    })()
    return this.#loading
  }

  /** The reload under way, if any. */
  get reloading(): Promise<void> | undefined {
    return this.#loading
  }

  /** True when the last load is older than the refresh interval (checked on every request: a comparison). */
  refreshDue(now: number): boolean {
    return !this.#loading && now - this.#lastLoadAt >= this.refreshMs
  }

  /** Starts a background reload when the last one is older than the refresh interval. */
  maybeRefresh(now: number, waitUntil?: (promise: Promise<unknown>) => void): void {
    if (!this.refreshDue(now)) return
    const loading = this.load(now).catch(() => {}) // a storage outage keeps the last known settings
    waitUntil?.(loading)
  }

  overrides(): SettingsPatch {
    return { ...this.#overrides }
  }

  events(): RoomEvent[] {
    return [...this.#events]
  }

  /** Merges `patch` into the stored overrides: one write at a time in this process (none lost to another). */
  patch(patch: SettingsPatch, now: number): Promise<SettingsPatch> {
    return serialised(this.storage, key(this.roomId, 'settings'), async () => {
      await this.#reload(now)
      const next: SettingsPatch = { ...this.#overrides, ...patch }
      for (const field of Object.keys(next) as (keyof SettingsPatch)[]) if (next[field] === null) delete next[field]
      await this.storage.setItem(key(this.roomId, 'settings'), next)
      this.#overrides = next
      this.#effective = undefined
      return next
    })
  }

  /** Adds an event; throws (and stores nothing) when it is invalid, its id is taken or it overlaps a stored one. */
  async addEvent(input: unknown, now: number): Promise<RoomEvent> {
    const [event] = normalizeEvents([input])
    await this.#stored.add(event!, this.#initialEvents, (current) => {
      const events = loadStoredEvents(current, this.roomId)
      if (events.some((e) => e.id === event!.id)) throw new WaitingRoomError('ERR_WR_CONFLICT', `an event with the id "${event!.id}" already exists: delete it first`)
      normalizeEvents([...events, event])
    })
    await this.#reload(now)
    return event!
  }

  /** Deletes the stored event with this id, valid or not (so a bad entry can always be removed); undefined when none. */
  async removeEvent(id: string, now: number): Promise<unknown> {
    const deleted = await this.#stored.remove(id, this.#initialEvents)
    await this.#reload(now)
    return deleted
  }

  /** A load that starts after the caller's write (one already under way may have read before it). */
  async #reload(now: number): Promise<void> {
    await this.#loading?.catch(() => {})
    await this.load(now)
  }

  /** The settings an event would put in force (its fields over the room's current ones), as if it were on now. */
  during(event: RoomEvent | undefined): RoomSettings {
    const settings: RoomSettings = { ...this.base }
    for (const field of Object.keys(this.#overrides) as (keyof SettingsPatch)[]) {
      const value = this.#overrides[field]
      if (value !== undefined && value !== null) (settings as unknown as Record<string, unknown>)[field] = value
    }
    if (event) {
      for (const field of EVENT_FIELDS) {
        const value = event[field]
        if (value !== null && value !== undefined) (settings as unknown as Record<string, unknown>)[field] = value
      }
    }
    return settings
  }

  #compute(now: number): EffectiveSettings {
    const phase = eventPhaseAt(this.#events, now)
    const settings = this.during(phase.event)
    this.#effective = { ...settings, phase }
    this.#computedAt = now
    return this.#effective
  }
}
