/**
 * @module
 * Scheduled events: time windows with their own limits, an optional prequeue before the start (users
 * wait on a prequeue page and are let in from the start), and an optional shuffle of the prequeued users.
 * Fields left out (or null) inherit the room's settings. A `suspended` event is ignored: the room's own
 * settings apply through its window. Cloudflare's limits hold: at most {@link MAX_EVENTS} events, an event lasts
 * at least a minute, a prequeue opens at least 5 minutes before the start, `totalActiveUsers` and
 * `newUsersPerMinute` are set together, and `shuffleAtEventStart` needs a prequeue.
 */
import { z } from 'zod'
import { templateError } from '../page/template-check.ts'
import { WaitingRoomError } from '../errors.ts'
import { intRange } from './int-range.ts'

/** Earliest time an event may name: 2000-01-01T00:00:00Z (an earlier one is a typo, and `new Date(0)` a bug). */
export const MIN_EVENT_TIME = Date.UTC(2000, 0, 1)
/** Latest time an event may name: 2100-01-01T00:00:00Z. */
export const MAX_EVENT_TIME = Date.UTC(2100, 0, 1)
const TIME_RANGE = { message: 'must be between 2000-01-01T00:00:00Z and 2100-01-01T00:00:00Z' }
const inRange = (value: number | string): boolean => {
  const ms = typeof value === 'number' ? value : Date.parse(value)
  return ms >= MIN_EVENT_TIME && ms <= MAX_EVENT_TIME
}

/**
 * ms since the epoch or an ISO 8601 time with an offset, from 2000 to 2100. The one schema for the admin API,
 * the options and the loader of stored events, so nothing accepted on the way in is refused on the way out.
 * Types are spelled out for JSR (no slow types).
 */
const time: z.ZodType<number | string, number | string> = z
  .union([z.number().int().nonnegative(), z.iso.datetime({ offset: true })])
  .refine(inRange, TIME_RANGE)

/** An event as given in options or to the admin API; fields left out (or null) inherit the room's settings. */
export interface WaitingRoomEventInput {
  id?: string | undefined
  name?: string | undefined
  /** A note about the event (Cloudflare's `description`). */
  description?: string | undefined
  eventStartTime: number | string
  eventEndTime: number | string
  prequeueStartTime?: number | string | null | undefined
  shuffleAtEventStart?: boolean | null | undefined
  totalActiveUsers?: number | null | undefined
  newUsersPerMinute?: number | null | undefined
  sessionDurationMinutes?: number | null | undefined
  disableSessionRenewal?: boolean | null | undefined
  queueingMethod?: 'fifo' | 'random' | 'passthrough' | 'reject' | null | undefined
  queueingStatusCode?: 200 | 202 | 429 | null | undefined
  suspended?: boolean | null | undefined
  template?: string | null | undefined
}

export const eventSchema: z.ZodType<WaitingRoomEventInput, WaitingRoomEventInput> = z.strictObject({
  /** Stable id; generated when missing. */
  id: z.string().regex(/^[A-Za-z0-9_.-]{1,64}$/, '1–64 letters, digits, _ . or -').optional(),
  name: z.string().max(200).optional(),
  description: z.string().max(2000).optional(),
  /** ms since the epoch or an ISO 8601 time. */
  eventStartTime: time,
  eventEndTime: time,
  /** Users arriving from here until the start wait on the prequeue page. */
  prequeueStartTime: time.nullish(),
  /** Draw prequeued users in random order at the start instead of by arrival. */
  shuffleAtEventStart: z.boolean().nullish(),
  totalActiveUsers: intRange(1, 10_000_000).nullish(),
  newUsersPerMinute: intRange(1, 10_000_000).nullish(),
  sessionDurationMinutes: intRange(1, 30).nullish(),
  disableSessionRenewal: z.boolean().nullish(),
  queueingMethod: z.enum(['fifo', 'random', 'passthrough', 'reject']).nullish(),
  queueingStatusCode: z.union([z.literal(200), z.literal(202), z.literal(429)]).nullish(),
  /** The event is ignored (the room's own settings apply), as Cloudflare's event `suspended`. */
  suspended: z.boolean().nullish(),
  template: z.string().min(1).refine((t) => templateError(t) === undefined, { error: (i) => templateError(String(i.input)) ?? 'invalid template' }).nullish(),
})

/** An event with its times in ms. */
export interface RoomEvent extends Omit<WaitingRoomEventInput, 'eventStartTime' | 'eventEndTime' | 'prequeueStartTime' | 'id'> {
  id: string
  eventStartTime: number
  eventEndTime: number
  prequeueStartTime: number | null
}

const toMs = (value: number | string): number => (typeof value === 'number' ? value : Date.parse(value))

/** Most events a room holds (stored and given as options together). */
export const MAX_EVENTS = 100
const MINUTE_MS = 60_000
/** Cloudflare: the prequeue opens at least five minutes before the event starts. */
export const MIN_PREQUEUE_MS = 5 * MINUTE_MS
/** Cloudflare: the start is at least one minute before the end. */
export const MIN_EVENT_MS = MINUTE_MS

/** What is wrong with one event's fields together (Cloudflare's rules), as `{ path, message }`; empty when nothing. */
export function eventIssues(e: WaitingRoomEventInput): { path: string; message: string }[] {
  const issues: { path: string; message: string }[] = []
  const start = toMs(e.eventStartTime)
  const end = toMs(e.eventEndTime)
  if (end <= start) issues.push({ path: 'eventEndTime', message: 'must be after eventStartTime' })
  else if (end - start < MIN_EVENT_MS) issues.push({ path: 'eventEndTime', message: 'must be at least one minute after eventStartTime' })
  if (e.prequeueStartTime != null) {
    const prequeue = toMs(e.prequeueStartTime)
    if (prequeue >= start) issues.push({ path: 'prequeueStartTime', message: 'must be before eventStartTime' })
    else if (start - prequeue < MIN_PREQUEUE_MS) issues.push({ path: 'prequeueStartTime', message: 'must be at least 5 minutes before eventStartTime' })
  }
  if ((e.totalActiveUsers == null) !== (e.newUsersPerMinute == null)) {
    const missing = e.totalActiveUsers == null ? 'totalActiveUsers' : 'newUsersPerMinute'
    issues.push({ path: missing, message: 'totalActiveUsers and newUsersPerMinute are set together on an event (or both left to the room)' })
  }
  if (e.shuffleAtEventStart && e.prequeueStartTime == null) issues.push({ path: 'shuffleAtEventStart', message: 'needs a prequeueStartTime (only prequeued users are shuffled)' })
  return issues
}

/**
 * Stored events as the room applies them: unlike {@link normalizeEvents}, never throws. An entry that fails
 * validation, repeats an id or overlaps an earlier one is skipped with a logged warning and the others apply,
 * so one bad entry (written by an older version, or by hand) cannot lock the admin API or the room.
 */
export function loadStoredEvents(inputs: readonly unknown[], roomId: string): RoomEvent[] {
  const valid: RoomEvent[] = []
  inputs.forEach((input, index) => {
    try {
      valid.push(normalizeEvents([input], `stored events.${index}`)[0]!)
    } catch (error) {
      console.warn(`[hono-waiting-room] room "${roomId}": skipping a stored event: ${(error as Error).message.replace(/^\[hono-waiting-room\] /, '')}`)
    }
  })
  valid.sort((a, b) => windowStart(a) - windowStart(b))
  const kept: RoomEvent[] = []
  for (const event of valid) {
    const last = kept[kept.length - 1]
    const clash = kept.some((e) => e.id === event.id) ? 'repeats an id' : last && windowStart(event) < last.eventEndTime ? `overlaps "${last.id}"` : undefined
    if (clash || kept.length >= MAX_EVENTS) {
      console.warn(`[hono-waiting-room] room "${roomId}": skipping the stored event "${event.id}": ${clash ?? `more than ${MAX_EVENTS} events`}`)
    } else kept.push(event)
  }
  return kept
}

/** When the event's window opens: the prequeue start if any, else the event start. */
export const windowStart = (event: RoomEvent): number => event.prequeueStartTime ?? event.eventStartTime

/** Validates events one by one and together: each must end after it starts, and no two windows may overlap. */
export function normalizeEvents(inputs: readonly unknown[], field = 'events'): RoomEvent[] {
  if (inputs.length > MAX_EVENTS) throw new WaitingRoomError('ERR_WR_OPTIONS', `invalid option ${field}: at most ${MAX_EVENTS} events per room (${inputs.length} given); delete past ones`)
  const events = inputs.map((input, index) => {
    const parsed = eventSchema.safeParse(input)
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!
      throw new WaitingRoomError('ERR_WR_OPTIONS', `invalid option ${field}.${index}.${issue.path.join('.')}: ${issue.message}`)
    }
    const e = parsed.data
    const issue = eventIssues(e)[0]
    if (issue) throw new WaitingRoomError('ERR_WR_OPTIONS', `invalid option ${field}.${index}.${issue.path}: ${issue.message}`)
    const event: RoomEvent = {
      ...e,
      id: e.id ?? `event-${toMs(e.eventStartTime)}`,
      eventStartTime: toMs(e.eventStartTime),
      eventEndTime: toMs(e.eventEndTime),
      prequeueStartTime: e.prequeueStartTime == null ? null : toMs(e.prequeueStartTime),
    }
    return event
  })
  events.sort((a, b) => windowStart(a) - windowStart(b))
  const ids = new Set<string>()
  for (const event of events) {
    if (ids.has(event.id)) throw new WaitingRoomError('ERR_WR_CONFLICT', `two events share the id "${event.id}"`)
    ids.add(event.id)
  }
  for (let i = 1; i < events.length; i++) {
    const before = events[i - 1]!
    const after = events[i]!
    if (windowStart(after) < before.eventEndTime) {
      throw new WaitingRoomError(
        'ERR_WR_CONFLICT',
        `events "${before.id}" and "${after.id}" overlap: "${after.id}" opens at ${new Date(windowStart(after)).toISOString()} ` +
          `before "${before.id}" ends at ${new Date(before.eventEndTime).toISOString()}`,
      )
    }
  }
  return events
}

export interface EventPhase {
  event: RoomEvent | undefined
  /** Between prequeueStartTime and eventStartTime. */
  prequeueing: boolean
  /** Between eventStartTime and eventEndTime. */
  active: boolean
  /** ms until the phase can change (the next start, end or prequeue boundary); Infinity with no events ahead. */
  validUntil: number
}

/** The event phase at `now`. Events are sorted and do not overlap, so at most one applies; suspended ones are ignored. */
export function eventPhaseAt(events: readonly RoomEvent[], now: number): EventPhase {
  for (const event of events) {
    if (event.suspended) continue
    if (now < windowStart(event)) return { event: undefined, prequeueing: false, active: false, validUntil: windowStart(event) }
    if (now < event.eventStartTime) return { event, prequeueing: true, active: false, validUntil: event.eventStartTime }
    if (now < event.eventEndTime) return { event, prequeueing: false, active: true, validUntil: event.eventEndTime }
  }
  return { event: undefined, prequeueing: false, active: false, validUntil: Number.POSITIVE_INFINITY }
}
