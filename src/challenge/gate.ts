/**
 * @module
 * The challenge in the request pipeline (the `challenge` option). For a user without an admitted session:
 *
 * - a ticket carrying the challenge claim has answered already: nothing more is asked;
 * - an answer in the {@link CHALLENGE_HEADER} header is verified; a good one puts the claim in the ticket
 *   this response seals, so the user is never asked again;
 * - anyone else is unverified: with `onFail: 'infinite-queue'` they are held — answered with the ordinary
 *   queue page and a challenge, counted nowhere — unless (`when: 'queueing'`, no ticket yet) a place the
 *   counters grant lets them in (never fail-open: decide.ts);
 *   with `onFail: 'log'` they are let on as usual, logged and counted in the metrics.
 */
import type { Context } from 'hono'
import { minuteOf } from '../clock.ts'
import type { EffectiveSettings } from '../admission/settings.ts'
import { withTimeout } from '../coordination/timeout.ts'
import type { QueueView } from '../room/pipeline/respond.ts'
import { queueResponse, queueView } from '../room/pipeline/respond.ts'
import type { Room } from '../room/room.ts'
import type { Ticket } from '../ticket/ticket.ts'
import type { TicketSealer } from '../ticket/ticket.ts'
import { platformAddress } from '../rules/facts.ts'
import { deriveChallengeKey } from './crypto.ts'
import { LocalClaims } from './local-claims.ts'
import { CHALLENGE_HEADER, type ChallengeEnvironment, type ChallengeFailure, type ChallengeVerdict } from './provider.ts'
import { SUBMIT_SCRIPT } from './solver.ts'

/** The counter scope single-use challenge ids are claimed in (one counter per minute of issue). */
export const CHALLENGE_SCOPE = '~challenge'
/** A held page refreshes this often, at least: long enough to solve the challenge it carries before it reloads. */
export const HELD_REFRESH_SECONDS = 120
/** A `log`-mode failure is written at most this often (with the count since the last line). */
const LOG_INTERVAL_MS = 10_000

export interface ChallengeState {
  /** The ticket sealed now carries the claim. */
  passed: boolean
  /** Unverified under `infinite-queue`: answer the held page rather than count the user. */
  held: boolean
}

const PASSED: ChallengeState = { passed: true, held: false }
const keys = new WeakMap<TicketSealer, Promise<Uint8Array>>()
/** Each room's (this worker's) memory of accepted challenge ids, for when the coordinator is down. */
const localClaims = new WeakMap<Room, LocalClaims>()

/** What providers are given for this request. */
export async function environmentOf(room: Room, c: Context, now: number): Promise<ChallengeEnvironment> {
  const sealer = room.sealerOf(c)
  let key = keys.get(sealer)
  if (!key) keys.set(sealer, (key = deriveChallengeKey(sealer.secret)))
  const coordinator = room.coordinatorOf(c)
  const { roomId } = room.o
  let local = localClaims.get(room)
  if (!local) localClaims.set(room, (local = new LocalClaims()))
  return {
    roomId,
    now,
    waitingUsers: room.link.snapshot(now)?.waitingUsers ?? 0,
    key: await key,
    // The room's own view of the client's address (the `clientIp` option, the proxy's conclusion under its
    // trust policy, CF-Connecting-IP on Workers, the socket's peer), never a header any client can write.
    clientIp: room.o.clientIp ? room.o.clientIp(c) : platformAddress(c),
    async claimOnce(id, issuedAt) {
      const request = { roomId, scope: CHALLENGE_SCOPE, minute: minuteOf(issuedAt), limit: 1e9, token: id }
      let result
      try {
        result = await withTimeout(coordinator.increment(request), room.o.coordinatorTimeoutMs, coordinator.name)
      } catch (error) {
        // Coordinator unreachable: refuse replays on this worker only (local-claims.ts) rather than lock out
        // every honest answer for the outage.
        room.link.failed(error, now)
        return local.claim(id, issuedAt, now)
      }
      local.claim(id, issuedAt, now) // remembered here too, for a replay once the coordinator is down
      return result.taken && !result.repeat
    },
  }
}

const verdictOf = (answer: boolean | ChallengeVerdict): ChallengeVerdict => (typeof answer === 'boolean' ? (answer ? { ok: true } : { ok: false, reason: 'refused' }) : answer)

/** Whether this request's user has answered, answers now, or is held. */
export async function checkChallenge(room: Room, c: Context, ticket: Ticket | undefined, now: number): Promise<ChallengeState> {
  const config = room.o.challenge!
  const metrics = room.metrics.challenge
  if (ticket?.challenge === 1) return PASSED
  const answer = c.req.header(CHALLENGE_HEADER)
  if (answer !== undefined) {
    let verdict: ChallengeVerdict
    try {
      verdict = verdictOf(await config.provider.verify(c, answer, await environmentOf(room, c, now)))
    } catch (error) {
      room.link.failed(error, now)
      verdict = { ok: false, reason: 'unavailable' }
    }
    const outcome = verdict.ok ? 'solved' : verdict.reason === 'replayed' ? 'replayed' : 'failed'
    room.history.count(now, room.locationOf(c), `challenge.${outcome}`) // the analytics' extra counters
    if (verdict.ok) {
      metrics.solved++
      if (verdict.issuedAt !== undefined) metrics.observeSolve((now - verdict.issuedAt) / 1000)
      return PASSED
    }
    metrics.fail(verdict.reason)
    if (config.onFail === 'log') logFailure(room, verdict.reason, now)
  }
  if (config.onFail === 'log') {
    metrics.logged++
    return { passed: false, held: false }
  }
  return { passed: false, held: true }
}

/** A fresh challenge for this response: what JSON clients get, and the page's widget. */
export async function challengeView(room: Room, c: Context, now: number): Promise<NonNullable<QueueView['challenge']>> {
  const config = room.o.challenge!
  const fields = config.provider.issue ? await config.provider.issue(await environmentOf(room, c, now)) : {}
  room.metrics.challenge.issued++
  room.history.count(now, room.locationOf(c), 'challenge.issued')
  const info = { ...fields, provider: config.name, mode: config.mode, header: CHALLENGE_HEADER }
  return { info, widget: (variables) => SUBMIT_SCRIPT + config.provider.widget({ ...variables, challenge: info }) }
}

/**
 * The infinite queue: the ordinary queue page (with a challenge a real browser solves by itself), no ticket,
 * and nothing recorded — no queue place, no traffic, no report — so it never advances and skews no estimate.
 */
export async function heldResponse(room: Room, c: Context, s: EffectiveSettings, now: number): Promise<Response> {
  room.metrics.challenge.held++
  room.history.count(now, room.locationOf(c), 'challenge.held')
  room.metrics.decisions.challenge++
  c.set('waitingRoom', { outcome: 'queued', reason: 'challenge' })
  const refresh = Math.max(room.o.refreshIntervalSeconds, HELD_REFRESH_SECONDS)
  const view = queueView({ snapshot: room.link.snapshot(now), bucketId: undefined, refresh, newlyQueued: true }, undefined, await challengeView(room, c, now))
  // Nothing to report, but a worker that only holds clients still refreshes its snapshot (every 5 s at most),
  // so the estimate on a held page is the room's current one, as on any queue page.
  room.report(c, room.locationOf(c), now)
  return queueResponse(room, c, s, view, now)
}

/** Each room's log throttle: one room's failures never hide (or get counted in) another's line. */
const logState = new WeakMap<Room, { lastLogAt: number; unlogged: number }>()

function logFailure(room: Room, reason: ChallengeFailure, now: number): void {
  let state = logState.get(room)
  if (!state) logState.set(room, (state = { lastLogAt: Number.NEGATIVE_INFINITY, unlogged: 0 }))
  state.unlogged++
  if (now - state.lastLogAt < LOG_INTERVAL_MS) return
  console.warn(`[hono-waiting-room] room ${room.o.roomId}: ${state.unlogged} challenge answer(s) refused (last: ${reason}); onFail 'log' let them on`)
  state.lastLogAt = now
  state.unlogged = 0
}
