/// <reference types="node" />
/**
 * @module
 * `--challenge proof-of-work[:difficulty]`, `--challenge-fail log|infinite-queue` and
 * `--challenge-when queueing|always`: the room's `challenge` option from the CLI (issue 17). Turnstile needs
 * keys and a custom provider needs code: both are for the library, not flags.
 */
import { WaitingRoomError } from '../src/errors.ts'
import { proofOfWork } from '../src/challenge/proof-of-work.ts'
import type { ChallengeOptions } from '../src/challenge/options.ts'
import { shown, UsageError } from './flag-values.ts'
import type { Given } from './flag-checks.ts'

/** The `challenge` option the flags ask for; undefined for none. */
export function challengeOf(given: Record<string, Given>): ChallengeOptions | undefined {
  const { challenge, 'challenge-fail': fail, 'challenge-when': when } = given
  const text = challenge ? String(challenge.value).trim().toLowerCase() : 'none'
  if (text === 'none') {
    const stray = fail ?? when
    if (stray) throw new UsageError(`${stray.source} needs --challenge (or WR_CHALLENGE): there is no challenge to fail or to ask`)
    return undefined
  }
  const match = /^proof-of-work(?::(\d+))?$/.exec(text)
  if (!match) throw new UsageError(`invalid ${shown(challenge!.source, challenge!.raw)}: the challenge must be proof-of-work, proof-of-work:<difficulty 1-24> or none`)
  let provider
  try {
    provider = proofOfWork(match[1] === undefined ? {} : { difficulty: Number(match[1]) })
  } catch (error) {
    if (!(error instanceof WaitingRoomError)) throw error
    throw new UsageError(`invalid ${shown(challenge!.source, challenge!.raw)}: the difficulty must be a whole number from 1 to 24 (leading zero bits)`)
  }
  // Their values were checked against the flag table's choices (infinite-queue or log, queueing or always).
  const onFail = fail?.value as ChallengeOptions['onFail']
  const whenValue = when?.value as ChallengeOptions['when']
  return { provider, ...(onFail && { onFail }), ...(whenValue && { when: whenValue }) }
}
