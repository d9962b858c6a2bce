/**
 * @module
 * Every coordinator call has a deadline: a backend that does not answer is an outage (the fail mode), not a
 * request that hangs.
 */
import { WaitingRoomError } from '../errors.ts'

/**
 * Runs `promise` with a timeout; rejects with a coordinator error naming the adapter. The timer starts one
 * microtask after the call, and only if the promise has not settled by then: an in-process coordinator
 * answers at once, and a timer armed and cleared per decision (with a race of three promises) was a
 * visible share of a new user's cost (issue 16). A remote call is not settled that early, so it gets its
 * timer as before.
 */
export function withTimeout<T>(promise: Promise<T>, ms: number, adapter: string): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    let settled = false
    let timer: ReturnType<typeof setTimeout> | undefined
    promise.then(
      (value) => {
        settled = true
        if (timer !== undefined) clearTimeout(timer)
        resolve(value)
      },
      (error: unknown) => {
        settled = true
        if (timer !== undefined) clearTimeout(timer)
        reject(error)
      },
    )
    // Queued after the reaction above: an already settled promise has answered before this runs.
    queueMicrotask(() => {
      if (!settled) timer = setTimeout(() => reject(new WaitingRoomError('ERR_WR_COORDINATOR', `${adapter}: no answer within ${ms} ms`)), ms)
    })
  })
}

/**
 * Waits for `promise` at most `ms`, and never rejects: for reads whose last known answer is good enough when
 * the fresh one is late or fails (settings and rules reloads). The timer is cleared as soon as it settles.
 */
export function settleWithin(promise: Promise<unknown>, ms: number): Promise<void> {
  let timer: ReturnType<typeof setTimeout> | undefined
  const late = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, ms)
  })
  return Promise.race([promise.then(() => {}, () => {}), late]).finally(() => {
    if (timer !== undefined) clearTimeout(timer)
  })
}
