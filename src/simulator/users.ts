/**
 * @module
 * Simulated users and what the simulator knows about them: the ground truth the core is measured against.
 */
import type { Worker } from './fleet.ts'
import { MINUTE_MS } from '../clock.ts'
import { positionEndsAt, positionOf, renewalDue } from '../coordination/positions.ts'

export interface SimUser {
  id: number
  location: string
  /** ms from the start of the run of the first request. */
  arrivalMs: number
  /** Time on the origin after admission, until the last request. */
  visitMs: number
  state: 'arriving' | 'queued' | 'visiting' | 'left'
  /** The ticket cookie the user holds. */
  cookie: string | undefined
  /**
   * Pairs (worker index, the worker's `remembered` count when it remembered `cookie`), flattened: a user's
   * ticket is known to a worker or two, and a Map per user cost ~200 bytes at a million users.
   */
  rememberedBy: number[]
  /** The worker of the first request (used when workers are chosen per user). */
  homeWorker: number | undefined
  admittedMs: number | undefined
  /** End of the live session (ms from start), from its position; 0 before admission. */
  sessionEndMs: number
  /** Where the session's count sits (coordination/positions.ts), minutes from start; 0 before admission. */
  position: number
  /** Queueing decisions this user got (not counting too-early check-ins). */
  queueDecisions: number
  /** The queue bucket of the user's last queueing decision. */
  bucketId: number | undefined
}

export function newUser(id: number, location: string, arrivalMs: number, visitMs: number): SimUser {
  return {
    id,
    location,
    arrivalMs,
    visitMs,
    state: 'arriving',
    cookie: undefined,
    rememberedBy: [],
    homeWorker: undefined,
    admittedMs: undefined,
    sessionEndMs: 0,
    position: 0,
    queueDecisions: 0,
    bucketId: undefined,
  }
}

/**
 * The documented session rule applied to what the simulator saw (coordination/positions.ts): an admission's
 * count sits at its minute; a request once that position is a minute old renews it to the request's slice
 * (3.75 s); the session ends `sessionDurationMinutes + 1` minutes after its position. The run starts on a minute
 * boundary, so minutes from the start line up with the core's minutes and slices.
 */
export const grantPosition = (atMs: number): number => Math.floor(atMs / MINUTE_MS)

export const renewedPosition = (position: number, atMs: number): number => (renewalDue(position, atMs) ? positionOf(atMs) : position)

export const sessionEnd = (position: number, sessionDurationMinutes: number): number => positionEndsAt(position, sessionDurationMinutes)

/**
 * Tickets a worker's sealer surely still remembers. `TicketSealer` keeps the last 20,000 tickets it sealed
 * or opened (ticket.ts); this stays well inside that, so a "surely" is never wrong.
 */
const SURELY_REMEMBERED = 15_000

/**
 * True when `worker` will find the user's ticket in its cache, so deciding it needs no decryption. A
 * decryption completes on the crypto thread pool in no fixed order, and a decision made after it would
 * race with the other requests of the same step; the run loop sends those requests one at a time.
 */
export function ticketRemembered(user: SimUser, worker: Worker): boolean {
  const pairs = user.rememberedBy
  for (let i = 0; i < pairs.length; i += 2) if (pairs[i] === worker.index) return worker.remembered - pairs[i + 1]! < SURELY_REMEMBERED
  return false
}

/** Notes that `worker` sealed or opened the user's current ticket. */
export function rememberTicket(user: SimUser, worker: Worker): void {
  const pairs = user.rememberedBy
  for (let i = 0; i < pairs.length; i += 2) {
    if (pairs[i] === worker.index) {
      pairs[i + 1] = worker.remembered++
      return
    }
  }
  pairs.push(worker.index, worker.remembered++)
}

/** The user now holds `cookie`, sealed by `worker`. */
export function takeTicket(user: SimUser, worker: Worker, cookie: string): void {
  user.cookie = cookie
  user.rememberedBy.length = 0
  rememberTicket(user, worker)
}
