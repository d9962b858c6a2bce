/**
 * @module
 * Every coordinator call has a deadline: a backend that does not answer is an outage (the fail mode), not a
 * request that hangs.
 */
import { WaitingRoomError } from '../errors.ts'

/** Runs `promise` with a timeout; rejects with a coordinator error naming the adapter. */
export function withTimeout<T>(promise: Promise<T>, ms: number, adapter: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new WaitingRoomError('ERR_WR_COORDINATOR', `${adapter}: no answer within ${ms} ms`)), ms)
  })
  return Promise.race([promise, timeout]).finally(() => {
    if (timer !== undefined) clearTimeout(timer)
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
