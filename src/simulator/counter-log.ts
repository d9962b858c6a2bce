/**
 * @module
 * A coordinator wrapper that watches the counters and the syncs without changing them: which limits the
 * workers' plans asked for, which calls were refused, and which room state each worker last received.
 * This is how the simulator explains a queueing decision from outside the core.
 */
import { ANYWHERE, takeInOrder, type Coordinator, type CounterRequest } from '../coordination/coordinator.ts'
import type { RoomState } from '../coordination/state.ts'

export interface CounterCall {
  /** A location name or `*` (Anywhere). */
  scope: string
  limit: number
  taken: boolean
  seq: number
}

/** One counter in one minute, as the workers used it. */
export interface CounterUse {
  /** Highest limit any worker asked for: what the minute's plans allowed. */
  limit: number
  /** Slots taken (retries not counted). */
  taken: number
  /** Calls refused because `seq >= limit`. */
  refused: number
}

export class CounterLog {
  /** Calls per ticket id (the counter token), cleared by the run loop after each simulated step. */
  readonly callsByToken = new Map<string, CounterCall[]>()
  /** `minute` → scope → use. */
  readonly useByMinute = new Map<number, Map<string, CounterUse>>()

  record(request: CounterRequest, taken: boolean, seq: number, repeat: boolean): void {
    let calls = this.callsByToken.get(request.token)
    if (!calls) this.callsByToken.set(request.token, (calls = []))
    calls.push({ scope: request.scope, limit: request.limit, taken, seq })
    let scopes = this.useByMinute.get(request.minute)
    if (!scopes) this.useByMinute.set(request.minute, (scopes = new Map()))
    let use = scopes.get(request.scope)
    if (!use) scopes.set(request.scope, (use = { limit: 0, taken: 0, refused: 0 }))
    use.limit = Math.max(use.limit, request.limit)
    if (taken && !repeat) use.taken++
    if (!taken) use.refused++
  }

  /** Slots the plans allowed but nobody took in `minute`: per location in total, and Anywhere. */
  unused(minute: number): { locations: number; anywhere: number } {
    let locations = 0
    let anywhere = 0
    for (const [scope, use] of this.useByMinute.get(minute) ?? []) {
      const left = Math.max(0, use.limit - use.taken)
      if (scope === ANYWHERE) anywhere += left
      else locations += left
    }
    return { locations, anywhere }
  }
}

/**
 * The shared coordinator as one worker sees it: every call goes to `inner`; counter calls are logged and
 * the last state a sync answered is kept on `view`. Methods not wrapped here (optional ones an adapter or
 * a later core may add) are inherited from `inner` unchanged. The memory coordinator's fused `takeSlot` is
 * replaced by the same order over the logged `increment` (one round trip counted): inherited, it bypassed the
 * log, and every run showed no counter calls (no `counters-full` cause, no unused slots).
 */
export function watchedCoordinator(inner: Coordinator, log: CounterLog, view: { state: RoomState | undefined }): Coordinator {
  const watched: Pick<Coordinator, 'name' | 'preferredSyncIntervalMs' | 'increment' | 'takeSlot' | 'sync'> = {
    name: inner.name,
    preferredSyncIntervalMs: inner.preferredSyncIntervalMs,
    async increment(request) {
      const result = await inner.increment(request)
      log.record(request, result.taken, result.seq, result.repeat === true)
      return result
    },
    takeSlot: (request) => takeInOrder((counter) => watched.increment(counter), request, true),
    async sync(report) {
      const state = await inner.sync(report)
      view.state = state
      return state
    },
  }
  return Object.assign(Object.create(inner) as Coordinator, watched)
}
