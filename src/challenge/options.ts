/**
 * @module
 * The `challenge` option: which provider, how it shows, and what a client that fails or skips it gets.
 */
import { z } from 'zod'
import type { ChallengeProvider } from './provider.ts'

export interface ChallengeOptions {
  /** `proofOfWork(...)`, `turnstile(...)`, or any `{ widget(variables), verify(c, answer) }`. */
  provider: ChallengeProvider
  /** `invisible` (default): no interaction unless the provider needs one; `interactive`: the widget always shows. */
  mode?: 'invisible' | 'interactive' | undefined
  /**
   * A client that fails or skips the challenge: `infinite-queue` (default) gets an ordinary-looking queue page
   * that never advances and is counted nowhere (not waiting, not in estimates or traffic); `log` is admitted
   * and counted as usual, and the failure is logged and counted in the metrics.
   */
  onFail?: 'log' | 'infinite-queue' | undefined
  /**
   * When a new user must answer: `queueing` (default) only when the room would queue them (a free place lets
   * them in at once, unchallenged); `always` before the first admission too, so bots never reach the origin.
   */
  when?: 'queueing' | 'always' | undefined
}

/** The `challenge` field of the room's options. */
export interface ChallengeOption {
  /** A challenge (proof of work, Turnstile, your own) before a place in line. Default none. */
  challenge?: ChallengeOptions | undefined
}

export interface ResolvedChallenge {
  provider: ChallengeProvider
  name: string
  mode: 'invisible' | 'interactive'
  onFail: 'log' | 'infinite-queue'
  when: 'queueing' | 'always'
}

export const challengeSchema = z.strictObject({
  provider: z.custom<ChallengeProvider>(
    (value) => typeof value === 'object' && value !== null && typeof (value as ChallengeProvider).widget === 'function' && typeof (value as ChallengeProvider).verify === 'function',
    { message: 'expected a challenge provider: proofOfWork(...), turnstile(...) or { widget(variables), verify(c, answer) }' },
  ),
  mode: z.enum(['invisible', 'interactive']).optional(),
  onFail: z.enum(['log', 'infinite-queue']).optional(),
  when: z.enum(['queueing', 'always']).optional(),
})

export function resolveChallenge(options: ChallengeOptions | undefined): ResolvedChallenge | undefined {
  if (!options) return undefined
  const name = options.provider.name ?? 'custom'
  return { provider: options.provider, name, mode: options.mode ?? 'invisible', onFail: options.onFail ?? 'infinite-queue', when: options.when ?? 'queueing' }
}
