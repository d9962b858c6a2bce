/**
 * @module
 * The stateless proof-of-work challenge: `pw1:<roomId>:<nonce>:<difficulty>:<issuedAt>:<expiresAt>:<hmac>`,
 * the HMAC-SHA-256 (base64url) of everything before it under the room's challenge key. An answer is the
 * challenge, `:`, and a decimal counter such that SHA-256 of the whole answer text has `difficulty` leading
 * zero bits. Checking it costs one HMAC and one SHA-256; nothing is stored until it is accepted, and then only
 * the nonce (single use, in the coordinator's counter for the minute it was issued).
 */
import { randomId } from '../ticket/random.ts'
import { challengeCrypto, leadingZeroBits, type ChallengeCrypto } from './crypto.ts'
import type { ChallengeEnvironment, ChallengeVerdict } from './provider.ts'

const VERSION = 'pw1'
/** Longest answer read at all: a room id (64), a nonce, numbers, a MAC and a counter fit well within it. */
export const MAX_ANSWER_LENGTH = 256
/** Clocks differ a little between workers: a challenge issued this far in the future is still believed. */
const CLOCK_SKEW_MS = 30_000
/** A challenge lives at most this long: its nonce's counter is kept 3 minutes past the minute it was issued in. */
export const MAX_TTL_SECONDS = 120

export interface ChallengeFields {
  roomId: string
  nonce: string
  difficulty: number
  issuedAt: number
  expiresAt: number
}

const payloadOf = (f: ChallengeFields): string => `${VERSION}:${f.roomId}:${f.nonce}:${f.difficulty}:${f.issuedAt}:${f.expiresAt}`

/** A new signed challenge. */
export async function issueChallenge(env: ChallengeEnvironment, difficulty: number, ttlSeconds: number, hashes: ChallengeCrypto = challengeCrypto()): Promise<string> {
  const fields = { roomId: env.roomId, nonce: randomId(), difficulty, issuedAt: env.now, expiresAt: env.now + ttlSeconds * 1000 }
  const payload = payloadOf(fields)
  const mac = hashes.hmac(env.key, payload)
  return `${payload}:${typeof mac === 'string' ? mac : await mac}`
}

const INTEGER = /^(?:0|[1-9]\d{0,15})$/

/** The fields of a challenge text, without checking its MAC; undefined when it is not one. */
export function parseChallenge(text: string): (ChallengeFields & { mac: string; payload: string }) | undefined {
  const parts = text.split(':')
  if (parts.length !== 7 || parts[0] !== VERSION) return undefined
  const [, roomId, nonce, difficulty, issuedAt, expiresAt, mac] = parts as [string, string, string, string, string, string, string]
  if (!INTEGER.test(difficulty) || !INTEGER.test(issuedAt) || !INTEGER.test(expiresAt) || nonce.length === 0 || mac.length === 0) return undefined
  const fields = { roomId, nonce, difficulty: Number(difficulty), issuedAt: Number(issuedAt), expiresAt: Number(expiresAt) }
  return { ...fields, mac, payload: text.slice(0, text.length - mac.length - 1) }
}

/** Equal strings in time independent of where they differ. */
function sameText(a: string, b: string): boolean {
  if (a.length !== b.length) return false
  let diff = 0
  for (let i = 0; i < a.length; i++) diff |= a.charCodeAt(i) ^ b.charCodeAt(i)
  return diff === 0
}

/**
 * Checks an answer: well formed, this room's, signed by its key, not expired, enough zero bits — then
 * claims the nonce, so the same challenge is accepted once across every worker.
 */
export async function verifyAnswer(answer: string, env: ChallengeEnvironment, hashes: ChallengeCrypto = challengeCrypto()): Promise<ChallengeVerdict> {
  if (answer.length > MAX_ANSWER_LENGTH) return { ok: false, reason: 'malformed' }
  const cut = answer.lastIndexOf(':')
  const counter = answer.slice(cut + 1)
  const parsed = cut > 0 && INTEGER.test(counter) ? parseChallenge(answer.slice(0, cut)) : undefined
  if (!parsed) return { ok: false, reason: 'malformed' }
  if (parsed.roomId !== env.roomId) return { ok: false, reason: 'wrong-room' }
  const mac = hashes.hmac(env.key, parsed.payload)
  if (!sameText(typeof mac === 'string' ? mac : await mac, parsed.mac)) return { ok: false, reason: 'forged' }
  const { issuedAt, expiresAt } = parsed
  if (env.now >= expiresAt || issuedAt > env.now + CLOCK_SKEW_MS || expiresAt - issuedAt > MAX_TTL_SECONDS * 1000) return { ok: false, reason: 'expired' }
  const digest = hashes.sha256(answer)
  if (leadingZeroBits(digest instanceof Uint8Array ? digest : await digest) < parsed.difficulty) return { ok: false, reason: 'unsolved' }
  if (!(await env.claimOnce(parsed.nonce, issuedAt))) return { ok: false, reason: 'replayed' }
  return { ok: true, issuedAt }
}

/** Solves a challenge by brute force (tests and API clients in Node; browsers use the page's Web Worker). */
export function solveChallenge(challenge: string, hashes: ChallengeCrypto = challengeCrypto()): string {
  const parsed = parseChallenge(challenge)
  if (!parsed) throw new Error('not a proof-of-work challenge')
  for (let counter = 0; ; counter++) {
    const answer = `${challenge}:${counter}`
    const digest = hashes.sha256(answer)
    if (digest instanceof Promise) throw new Error('solveChallenge needs a synchronous SHA-256 (node:crypto)')
    if (leadingZeroBits(digest) >= parsed.difficulty) return answer
  }
}
