/**
 * @module
 * The one way this adapter writes: a queue per process. Calls wait in it, in order; whenever the write lock
 * is free, the calls waiting run together in one `BEGIN IMMEDIATE … COMMIT`, each in a savepoint (a failing
 * call undoes only itself). While another process holds the lock, one retry loop waits with an
 * asynchronous backoff — never SQLite's busy handler, which sleeps on the thread that also serves admitted
 * users (#14.5: 20 s of lock held elsewhere made their requests take 0.5 s) — and each call gives up at its
 * own deadline. A batch is cut short after a few ms, and the queue yields to the event loop between batches.
 */
import { WaitingRoomError } from '../../src/errors.ts'
import { isBusy, isFileError, messageOf, type Connection, type ConnectionSource } from './driver.ts'

/** Backoff between attempts on a locked file: doubles from here… */
const FIRST_BACKOFF_MS = 1
/**
 * …up to here, with jitter. Short: one loop per process polls (a failed `BEGIN IMMEDIATE` costs microseconds),
 * and a process waiting longer than the gap below would rarely find the lock free.
 */
const MAX_BACKOFF_MS = 2
/** A batch stops taking calls after this long, so the thread (and the lock) is never held for long. */
const MAX_BATCH_MS = 4
/**
 * Pause between two batches of a busy process: other processes' waiting loops find the lock free in it, so
 * one process with a long queue does not keep the lock until its queue is empty.
 */
const BATCH_GAP_MS = 2

/** How long a kind of call waits for the database, and the option that sets it (named in the error). */
export interface LockWait {
  ms: number
  option: string
}

/** Runs `work` in a write transaction, waiting up to `wait.ms` for it; rejects with a WaitingRoomError. */
export type Transaction<S> = <T>(what: string, wait: LockWait, work: (statements: S) => T) => Promise<T>

interface Call<S> {
  what: string
  wait: LockWait
  deadline: number
  work: (statements: S) => unknown
  resolve(value: unknown): void
  reject(error: unknown): void
}

type Outcome = { ok: true; value: unknown } | { ok: false; error: unknown }

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms))

const wrap = (adapter: string, what: string, error: unknown): WaitingRoomError =>
  error instanceof WaitingRoomError
    ? error
    : new WaitingRoomError('ERR_WR_COORDINATOR', `${adapter}: ${what} failed: ${messageOf(error)}`, { cause: error })

function gaveUp(adapter: string, call: Call<unknown>, now: number, cause: unknown): WaitingRoomError {
  return new WaitingRoomError(
    'ERR_WR_COORDINATOR',
    `${adapter}: ${call.what} gave up after ${now - (call.deadline - call.wait.ms)} ms waiting for the database file: ` +
      `another connection held its write lock (SQLITE_BUSY) or this process queued too many calls. ` +
      `Keep other connections' transactions short, or raise ${call.wait.option}.`,
    { cause },
  )
}

export function writer<S>(adapter: string, source: ConnectionSource<S>): Transaction<S> {
  const queue: Call<S>[] = []
  let draining = false

  /** Rejects the calls whose deadline passed while they waited. */
  const expire = (now: number, cause: unknown): void => {
    for (let i = queue.length - 1; i >= 0; i--) {
      const call = queue[i]!
      if (call.deadline <= now) {
        queue.splice(i, 1)
        call.reject(gaveUp(adapter, call as Call<unknown>, now, cause))
      }
    }
  }

  /** Runs calls from the head of the queue in one transaction; they leave the queue only if it commits. */
  const runBatch = (connection: Connection<S>): Outcome[] => {
    const outcomes: Outcome[] = []
    const started = performance.now()
    connection.attempt(() => {
      // A call alone in its transaction needs no savepoint (two statements less per decision, #16): its
      // failure rolls the whole transaction back, which holds nothing else, and fails it like any failure.
      if (queue.length === 1) {
        outcomes.push({ ok: true, value: queue[0]!.work(connection.statements) })
        return
      }
      for (const call of queue) {
        if (outcomes.length > 0 && performance.now() - started > MAX_BATCH_MS) break
        try {
          outcomes.push({ ok: true, value: connection.savepoint(() => call.work(connection.statements)) })
        } catch (error) {
          // The lock or the file failed: the whole batch is undone and retried (or failed) together.
          if (isBusy(error) || isFileError(error)) throw error
          outcomes.push({ ok: false, error })
        }
      }
    })
    return outcomes
  }

  /** Fails every waiting call with `error`. */
  const rejectAll = (error: unknown): void => {
    for (const call of queue.splice(0)) call.reject(wrap(adapter, call.what, error))
  }

  /** One pass: a batch that commits, or a wait for the lock; throws what fails every waiting call. */
  const step = async (state: { attempt: number; busy: unknown }): Promise<void> => {
    // Every call gets one attempt at least; its deadline only counts once the file was found locked.
    if (state.busy !== undefined) expire(Date.now(), state.busy)
    if (queue.length === 0) return
    const connection = source.current() // throws when there is no usable file: every waiting call fails
    try {
      const outcomes = runBatch(connection)
      for (const [i, call] of queue.splice(0, outcomes.length).entries()) {
        const outcome = outcomes[i]!
        if (outcome.ok) call.resolve(outcome.value)
        else call.reject(wrap(adapter, call.what, outcome.error))
      }
      state.attempt = 0
      state.busy = undefined
      if (queue.length > 0) await sleep(BATCH_GAP_MS) // also lets other requests run
    } catch (error) {
      if (!isBusy(error)) {
        if (isFileError(error)) source.failed(connection, error)
        throw error
      }
      state.busy = error
      const ceiling = Math.min(MAX_BACKOFF_MS, FIRST_BACKOFF_MS * 2 ** state.attempt++)
      await sleep(ceiling / 2 + Math.random() * (ceiling / 2))
    }
  }

  const drain = async (): Promise<void> => {
    draining = true
    const state = { attempt: 0, busy: undefined as unknown }
    try {
      while (queue.length > 0) {
        try {
          await step(state)
        } catch (error) {
          rejectAll(error)
        }
      }
    } finally {
      draining = false
    }
  }

  /** After a call ran alone: the calls that queued behind it meanwhile run together. */
  const resume = (): void => {
    draining = false
    if (queue.length > 0) void drain()
  }

  /**
   * A call that finds the queue idle runs at once, alone in its transaction, without the queue's asynchronous
   * steps (#16: one decision at a time is the common case of a quiet process). Answers false when the file is
   * locked: the call then waits in the queue like any other.
   */
  const runAlone = (call: Call<S>): boolean => {
    let connection: Connection<S>
    try {
      connection = source.current()
    } catch (error) {
      call.reject(wrap(adapter, call.what, error))
      return true
    }
    try {
      call.resolve(connection.attempt(() => call.work(connection.statements)))
    } catch (error) {
      if (isBusy(error)) return false
      if (isFileError(error)) source.failed(connection, error)
      call.reject(wrap(adapter, call.what, error))
    }
    return true
  }

  return function transaction<T>(what: string, wait: LockWait, work: (statements: S) => T): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const call: Call<S> = { what, wait, deadline: Date.now() + wait.ms, work, resolve: resolve as (value: unknown) => void, reject }
      if (!draining && queue.length === 0 && runAlone(call)) {
        // Calls made in the rest of this tick wait and then share one transaction, as they would behind a drain.
        draining = true
        queueMicrotask(resume)
        return
      }
      queue.push(call)
      if (!draining) void drain()
    })
  }
}
