/**
 * break14e support: a store wrapper that is slow (every sync answers `syncMs` real ms late, applied at once — the
 * store's own latency, so a SIGKILL after a call was sent never loses it) and a kill switch for the worker using it
 * (after `kill()` no new call reaches the store: a SIGKILLed process sends nothing more).
 */
import type { Coordinator } from '../../../src/index.ts'
export { MINUTE, SECRET, sleep, worker } from '../break14d/slow.ts'

export interface Killable { coordinator: Coordinator; kill: () => void; calls: { syncs: number; dropped: number } }

export function slowKillable(inner: Coordinator, slow: { syncMs: number }): Killable {
  let dead = false
  const calls = { syncs: 0, dropped: 0 }
  const never = <T>() => new Promise<T>(() => {})
  const coordinator: Coordinator = {
    name: 'slow-killable',
    increment: (r) => (dead ? never() : inner.increment(r)),
    takeSlot: (r) => (dead ? never() : inner.takeSlot!(r)),
    sync: async (r) => {
      if (dead) { calls.dropped++; return never() }
      calls.syncs++
      const answer = await inner.sync(r) // applied now: only the reply is late
      await new Promise((res) => setTimeout(res, slow.syncMs))
      return answer
    },
  }
  return { coordinator, kill: () => (dead = true), calls }
}
