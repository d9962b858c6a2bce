/**
 * The signed proof-of-work challenge (src/challenge/signed-challenge.ts): a solved challenge is accepted once;
 * forged, expired, foreign-room, unsolved, tampered and replayed answers are refused — for generated fields
 * and tamperings (fast-check), with both hash implementations (node:crypto and Web Crypto).
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { memoryCoordinator } from '../adapters/memory/index.ts'
import { challengeCrypto, deriveChallengeKey, leadingZeroBits, nodeChallengeCryptoFrom, webChallengeCrypto } from '../src/challenge/crypto.ts'
import { difficultyFor, proofOfWork } from '../src/challenge/proof-of-work.ts'
import type { ChallengeEnvironment } from '../src/challenge/provider.ts'
import { issueChallenge, parseChallenge, solveChallenge, verifyAnswer } from '../src/challenge/signed-challenge.ts'
import { minuteOf } from '../src/clock.ts'

const START = Date.UTC(2026, 10, 30, 12, 0, 0)
const KEY = await deriveChallengeKey('challenge-test-secret-0123456789-abcdef')
const OTHER_KEY = await deriveChallengeKey('another-secret-0123456789-abcdefghijkl')

/** An environment whose single-use claims go to a real (in-memory) coordinator's counters. */
function environment(now = START, roomId = 'pow-room', coordinator = memoryCoordinator(), key = KEY): ChallengeEnvironment {
  return {
    roomId,
    now,
    waitingUsers: 0,
    key,
    async claimOnce(id, issuedAt) {
      const result = await coordinator.increment({ roomId, scope: '~challenge', minute: minuteOf(issuedAt), limit: 1e9, token: id })
      return result.taken && !result.repeat
    },
  }
}

describe('hashes', () => {
  it('node:crypto and Web Crypto agree, and node:crypto is the one in use on Node', async () => {
    const node = nodeChallengeCryptoFrom((id) => process.getBuiltinModule(id))!
    expect(node.name).toBe('node:crypto')
    expect(challengeCrypto().name).toBe('node:crypto')
    await fc.assert(
      fc.asyncProperty(fc.string(), async (text) => {
        expect(Buffer.from(node.sha256(text) as Uint8Array).toString('hex')).toBe(Buffer.from(await webChallengeCrypto.sha256(text)).toString('hex'))
        expect(node.hmac(KEY, text)).toBe(await webChallengeCrypto.hmac(KEY, text))
      }),
      { numRuns: 50 },
    )
  })

  it('refuses a node:crypto that gives wrong answers, and a lookup that throws', () => {
    const wrong = { createHash: () => ({ update() { return this }, digest: () => new Uint8Array(32) }), createHmac: () => ({ update() { return this }, digest: () => new Uint8Array(32) }) }
    expect(nodeChallengeCryptoFrom(() => wrong)).toBeUndefined()
    expect(nodeChallengeCryptoFrom(() => { throw new Error('no') })).toBeUndefined()
  })

  it('counts leading zero bits', () => {
    expect(leadingZeroBits(new Uint8Array([0, 0, 0x80]))).toBe(16)
    expect(leadingZeroBits(new Uint8Array([0, 0x01]))).toBe(15)
    expect(leadingZeroBits(new Uint8Array([0xff]))).toBe(0)
    expect(leadingZeroBits(new Uint8Array([0, 0]))).toBe(16)
  })
})

describe('a signed challenge', () => {
  it.each([
    ['node:crypto', challengeCrypto()],
    ['web-crypto', webChallengeCrypto],
  ])('is accepted once when solved (%s), and its answer has the leading zero bits asked', async (_name, hashes) => {
    const env = environment()
    const challenge = await issueChallenge(env, 12, 60, hashes)
    const answer = solveChallenge(challenge)
    expect(leadingZeroBits(challengeCrypto().sha256(answer) as Uint8Array)).toBeGreaterThanOrEqual(12)
    expect(await verifyAnswer(answer, { ...env, now: START + 5000 }, hashes)).toEqual({ ok: true, issuedAt: START })
    expect(await verifyAnswer(answer, { ...env, now: START + 6000 }, hashes)).toEqual({ ok: false, reason: 'replayed' })
  })

  it('is refused once expired, from another room, under another key, or not solved', async () => {
    const env = environment()
    const challenge = await issueChallenge(env, 8, 30)
    const answer = solveChallenge(challenge)
    expect(await verifyAnswer(answer, environment(START + 30_000))).toEqual({ ok: false, reason: 'expired' })
    expect(await verifyAnswer(answer, environment(START, 'other-room'))).toEqual({ ok: false, reason: 'wrong-room' })
    expect(await verifyAnswer(answer, environment(START, 'pow-room', memoryCoordinator(), OTHER_KEY))).toEqual({ ok: false, reason: 'forged' })
    // A counter that does not give the zero bits (difficulty 8: one counter in 256 does).
    let unsolved = 0
    while (leadingZeroBits(challengeCrypto().sha256(`${challenge}:${unsolved}`) as Uint8Array) >= 8) unsolved++
    expect(await verifyAnswer(`${challenge}:${unsolved}`, env)).toEqual({ ok: false, reason: 'unsolved' })
    expect(await verifyAnswer(answer, env)).toEqual({ ok: true, issuedAt: START })
  })

  it('refuses a replay on another worker sharing the coordinator, and from a later minute', async () => {
    const coordinator = memoryCoordinator()
    const challenge = await issueChallenge(environment(START + 50_000, 'pow-room', coordinator), 6, 120)
    const answer = solveChallenge(challenge)
    expect((await verifyAnswer(answer, environment(START + 55_000, 'pow-room', coordinator))).ok).toBe(true)
    // Another worker, another minute (the nonce lives in the counter of the minute it was issued in).
    expect(await verifyAnswer(answer, environment(START + 150_000, 'pow-room', coordinator))).toEqual({ ok: false, reason: 'replayed' })
  })

  it('refuses every tampering of a solved answer: any field changed, any character changed (generated)', async () => {
    const coordinator = memoryCoordinator()
    const env = environment(START, 'pow-room', coordinator)
    const challenge = await issueChallenge(env, 4, 120)
    const answer = solveChallenge(challenge)
    const parts = answer.split(':')
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          // one field replaced by another value
          fc.tuple(fc.integer({ min: 1, max: 5 }), fc.oneof(fc.nat().map(String), fc.stringMatching(/^[A-Za-z0-9_.-]{1,20}$/))).map(([i, value]) => {
            const copy = [...parts]
            copy[i] = value
            return copy.join(':')
          }),
          // one character changed anywhere before the counter
          fc.tuple(fc.nat({ max: challenge.length - 1 }), fc.constantFrom(...'ABCxyz0129-_:.')).map(([at, ch]) => answer.slice(0, at) + ch + answer.slice(at + 1)),
          // arbitrary text
          fc.string({ maxLength: 300 }),
        ),
        async (tampered) => {
          fc.pre(tampered !== answer && !tampered.startsWith(`${challenge}:`))
          const verdict = await verifyAnswer(tampered, env)
          expect(verdict.ok).toBe(false)
        },
      ),
      { numRuns: 400 },
    )
  })

  it('parses only its own format', () => {
    expect(parseChallenge('pw1:r:n:1:2:3:mac')).toMatchObject({ roomId: 'r', nonce: 'n', difficulty: 1, issuedAt: 2, expiresAt: 3 })
    for (const text of ['', 'pw2:r:n:1:2:3:mac', 'pw1:r:n:01:2:3:mac', 'pw1:r:n:1:2:3', 'pw1:r::1:2:3:mac', 'pw1:r:n:-1:2:3:mac']) expect(parseChallenge(text)).toBeUndefined()
  })
})

describe('proofOfWork()', () => {
  it('raises the difficulty one bit at raiseAbove queued users and one per doubling, up to maxDifficulty', () => {
    expect(difficultyFor(999, 16, 20, 1000)).toBe(16)
    expect(difficultyFor(1000, 16, 20, 1000)).toBe(17)
    expect(difficultyFor(1999, 16, 20, 1000)).toBe(17)
    expect(difficultyFor(2000, 16, 20, 1000)).toBe(18)
    expect(difficultyFor(4000, 16, 20, 1000)).toBe(19)
    expect(difficultyFor(1e9, 16, 20, 1000)).toBe(20)
    expect(difficultyFor(1e9, 16, 16, 1000)).toBe(16)
    fc.assert(
      fc.property(fc.nat({ max: 1e7 }), fc.nat({ max: 1e7 }), fc.integer({ min: 1, max: 24 }), fc.integer({ min: 0, max: 8 }), (a, b, base, extra) => {
        const [low, high] = a <= b ? [a, b] : [b, a]
        const d = (w: number) => difficultyFor(w, base, base + extra, 1000)
        expect(d(low)).toBeLessThanOrEqual(d(high))
        expect(d(high)).toBeLessThanOrEqual(base + extra)
      }),
    )
  })

  it('issues the difficulty for the queue it sees', async () => {
    const provider = proofOfWork({ difficulty: 10, maxDifficulty: 14, raiseAbove: 100 })
    const issued = await provider.issue!({ ...environment(), waitingUsers: 400 })
    expect(issued.difficulty).toBe(13)
    expect(parseChallenge(String(issued.challenge))?.difficulty).toBe(13)
  })

  it('throws at build time naming the bad field and its range', () => {
    expect(() => proofOfWork({ difficulty: 0 })).toThrow(/difficulty: an integer from 1 to 24/)
    expect(() => proofOfWork({ difficulty: 25 })).toThrow(/difficulty/)
    expect(() => proofOfWork({ difficulty: 16, maxDifficulty: 12 })).toThrow(/maxDifficulty: an integer from 16 to 24/)
    expect(() => proofOfWork({ ttlSeconds: 600 })).toThrow(/ttlSeconds: an integer from 10 to 120/)
    expect(() => proofOfWork({ difficulty: 1.5 })).toThrow(/difficulty/)
  })
})
