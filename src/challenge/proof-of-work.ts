/**
 * @module
 * `proofOfWork()`: the self-hosted provider. Each queue page carries a fresh signed challenge
 * (./signed-challenge.ts); the browser solves it in a Web Worker (./solver.ts) and sends the answer back;
 * the server checks it with one HMAC and one SHA-256 and accepts each challenge once.
 *
 * Difficulty may rise with the queue: with `maxDifficulty` above `difficulty`, a queue of `raiseAbove` users
 * adds one bit, and every doubling past it one more — `difficulty + 1 + floor(log2(waiting / raiseAbove))`,
 * capped at `maxDifficulty`. Each bit doubles the expected work. It has no visible part in either `mode`: the
 * page's ordinary queue view is what the user sees while the worker solves.
 */
import { WaitingRoomError } from '../errors.ts'
import { escapeHtml, type ChallengeEnvironment, type ChallengeProvider, type ChallengeVariables } from './provider.ts'
import { issueChallenge, MAX_TTL_SECONDS, verifyAnswer } from './signed-challenge.ts'
import { SOLVER_SCRIPT } from './solver.ts'

/**
 * The most bits allowed: 2^24 ≈ 16.8 million hashes expected, minutes even for a fast browser's Web Crypto
 * (README "Bots": ~18,000/s measured), so no browser answers it within a challenge's 120 s at most.
 */
export const MAX_DIFFICULTY = 24
/** A browser's hash rate to warn by: the rate measured in Chromium (bench/challenge-browser.mjs). */
export const BROWSER_HASHES_PER_SECOND = 18_000

export interface ProofOfWorkOptions {
  /**
   * Leading zero bits of SHA-256 the answer needs (1–24): 2^difficulty hashes expected. Default 16. A building
   * room warns when a browser would need more than half the challenge's lifetime on average.
   */
  difficulty?: number | undefined
  /** Most bits the queue can raise it to (at most 24). Default `difficulty` (never rises). */
  maxDifficulty?: number | undefined
  /** Queue length at which the first extra bit is added (each doubling past it adds another). Default 1000. */
  raiseAbove?: number | undefined
  /** Seconds a challenge can be answered in (10–120). Default 120. */
  ttlSeconds?: number | undefined
}

/** The difficulty for a queue of `waiting` users (see the module's rule). */
export function difficultyFor(waiting: number, base: number, max: number, raiseAbove: number): number {
  if (max <= base || waiting < raiseAbove) return base
  return Math.min(max, base + 1 + Math.floor(Math.log2(waiting / raiseAbove)))
}

function check(name: string, value: number, min: number, max: number): number {
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new WaitingRoomError('ERR_WR_OPTIONS', `invalid option challenge.provider ${name}: an integer from ${min} to ${max}`)
  }
  return value
}

/** Seconds a browser needs on average for `bits` (at {@link BROWSER_HASHES_PER_SECOND}). */
export const browserSeconds = (bits: number): number => 2 ** bits / BROWSER_HASHES_PER_SECOND

/** Warns (once, at build) when the top difficulty is beyond what a browser answers in half the lifetime. */
function warnIfSlow(max: number, ttlSeconds: number): void {
  if (browserSeconds(max) <= ttlSeconds / 2) return
  console.warn(
    `[hono-waiting-room] challenge.provider difficulty ${max}: a browser needs about ${Math.round(browserSeconds(max))} s on average ` +
      `(~${BROWSER_HASHES_PER_SECOND}/s hashes), more than half the challenge's ${ttlSeconds} s lifetime: many users will not answer in time`,
  )
}

export function proofOfWork(options: ProofOfWorkOptions = {}): ChallengeProvider {
  const difficulty = check('difficulty', options.difficulty ?? 16, 1, MAX_DIFFICULTY)
  const max = check('maxDifficulty', options.maxDifficulty ?? difficulty, difficulty, MAX_DIFFICULTY)
  const raiseAbove = check('raiseAbove', options.raiseAbove ?? 1000, 1, 1e9)
  const ttlSeconds = check('ttlSeconds', options.ttlSeconds ?? MAX_TTL_SECONDS, 10, MAX_TTL_SECONDS)
  warnIfSlow(max, ttlSeconds)
  return {
    name: 'proof-of-work',
    async issue(env: ChallengeEnvironment) {
      const bits = difficultyFor(env.waitingUsers, difficulty, max, raiseAbove)
      return { challenge: await issueChallenge(env, bits, ttlSeconds), difficulty: bits, expiresAt: env.now + ttlSeconds * 1000 }
    },
    widget(variables: ChallengeVariables): string {
      const { challenge, difficulty: bits } = variables.challenge
      return `<div id="wr-challenge" hidden data-challenge="${escapeHtml(String(challenge))}" data-difficulty="${Number(bits)}"></div>${SOLVER_SCRIPT}`
    },
    verify: (_c, answer, env) => verifyAnswer(answer, env),
  }
}
