/**
 * @module
 * What a challenge provider is: something to put on the queue page (`widget`) and a check of what the page
 * sends back (`verify`), with an optional `issue` for challenges made per request (proof of work). The room
 * gives providers a {@link ChallengeEnvironment}: its id, clock, queue length, a key derived from its secret
 * and a single-use claim that holds across workers.
 */
import type { Context } from 'hono'
import type { TemplateVariables } from '../page/queue-page.ts'

/** The request header a solved challenge comes back in (the page sends it with `fetch`, API clients by hand). */
export const CHALLENGE_HEADER = 'Waiting-Room-Challenge'

/** Why a submitted challenge was refused. */
export type ChallengeFailure = 'malformed' | 'forged' | 'expired' | 'wrong-room' | 'unsolved' | 'replayed' | 'refused' | 'unavailable'

export type ChallengeVerdict = { ok: true; issuedAt?: number | undefined } | { ok: false; reason: ChallengeFailure }

export interface ChallengeEnvironment {
  roomId: string
  now: number
  /** Users waiting in the room as this worker last saw it (0 when unknown). */
  waitingUsers: number
  /** HMAC key derived from the room's secret (never the ticket key). */
  key: Uint8Array
  /**
   * The client's address as the room concludes it (the `clientIp` option, the proxy's trusted conclusion,
   * CF-Connecting-IP on Workers, the socket's peer); undefined when unknown. Never a client-written header.
   */
  clientIp?: string | undefined
  /**
   * Claims `id` once: true the first time, false for any later claim on any worker sharing the coordinator
   * (the coordinator's counters are idempotent by token). `issuedAt` picks the minute counter it lives in.
   * While the coordinator cannot be reached, replays are refused per worker only (src/challenge/local-claims.ts).
   */
  claimOnce(id: string, issuedAt: number): Promise<boolean>
}

/** What a page and a JSON client are told about the challenge. */
export interface ChallengeInfo {
  provider: string
  mode: 'invisible' | 'interactive'
  /** The header to send the answer in. */
  header: string
  /** Provider fields, e.g. proof of work's `challenge` and `difficulty`. */
  [field: string]: unknown
}

/** The template variables a widget is rendered from: the page's, and the challenge. */
export type ChallengeVariables = TemplateVariables & { challenge: ChallengeInfo }

export interface ChallengeProvider {
  /** A name for metrics, logs and JSON (`custom` when left out). */
  readonly name?: string
  /** Fields of a challenge made for this response (JSON clients get them too). */
  issue?(env: ChallengeEnvironment): Record<string, unknown> | Promise<Record<string, unknown>>
  /**
   * HTML put on the queue page (`{{{challengeWidget}}}` in a template). When the browser has an answer it
   * calls `waitingRoomChallengeSolved(answer)`, which the room defines on the page: it sends the answer in
   * the {@link CHALLENGE_HEADER} header and reloads.
   */
  widget(variables: ChallengeVariables): string
  /** Checks an answer: true/false, or a verdict with a reason (and when the challenge was issued, for metrics). */
  verify(c: Context, answer: string, env: ChallengeEnvironment): boolean | ChallengeVerdict | Promise<boolean | ChallengeVerdict>
}

/** Escapes text for an HTML attribute or text node. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`)
}
