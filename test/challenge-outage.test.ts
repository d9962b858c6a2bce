/**
 * The challenge while the coordinator is down (breaker `bots`, issue 17):
 * - a client that has not answered is never let in by `failMode: 'open'` (it stays held);
 * - an honest answer is still accepted (single use falls back to a per-worker seen-set for the challenge's
 *   lifetime), so honest users are not locked out for the outage, and the ticket carries the claim;
 * - a replay is refused on the worker that saw the answer (per worker only during an outage).
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { CHALLENGE_HEADER, proofOfWork, solveChallenge, type Coordinator } from '../src/index.ts'
import { memoryCoordinator, START, worker } from './breaker/harness.ts'

const J = { accept: 'application/json' }
const rid = (p: string) => `${p}-${Math.random().toString(36).slice(2, 8)}`

function breakable() {
  const inner = memoryCoordinator()
  let down = false
  const fail = () => Promise.reject(new Error('backend down'))
  const c = {
    name: 'breakable',
    preferredSyncIntervalMs: 0,
    increment: (r) => (down ? fail() : inner.increment(r)),
    takeSlot: (r) => (down ? fail() : inner.takeSlot!(r)),
    sync: (r) => (down ? fail() : inner.sync(r)),
  } as Coordinator
  return { c, setDown: (d: boolean) => void (down = d) }
}

type Worker = ReturnType<typeof worker>
const challengeOf = async (w: Worker): Promise<string> => JSON.parse((await w.request(undefined, { headers: J })).body).waitingRoom.challenge.challenge

/** Fills a room of `n` places with users who answered when asked. */
async function fill(w: Worker, n: number): Promise<void> {
  for (let i = 0; i < n; i++) {
    const first = await w.request(undefined, { headers: J })
    if (first.admitted) continue
    const answer = solveChallenge(JSON.parse(first.body).waitingRoom.challenge.challenge)
    expect((await w.request(undefined, { headers: { [CHALLENGE_HEADER]: answer } })).admitted).toBe(true)
  }
}

describe('challenge during a coordinator outage', () => {
  for (const when of ['queueing', 'always'] as const) {
    for (const failMode of ['open', 'closed'] as const) {
      it(`failMode ${failMode}, when ${when}: the skipping bot is held, the honest answer is accepted once per worker`, async () => {
        const clock = { now: START }
        const b = breakable()
        const w = worker(b.c, clock, { roomId: rid('o'), jsonResponseEnabled: true, failMode, totalActiveUsers: 1, challenge: { provider: proofOfWork({ difficulty: 8 }), when } })
        await w.request(undefined, when === 'always' ? { headers: { [CHALLENGE_HEADER]: solveChallenge(await challengeOf(w)) } } : {}) // fills the room
        clock.now += 1000
        const answer = solveChallenge(await challengeOf(w))
        b.setDown(true)
        clock.now += 1000
        for (const headers of [{}, { [CHALLENGE_HEADER]: 'junk' }, J] as Record<string, string>[]) {
          const bot = await w.request(undefined, { headers })
          expect(bot.admitted, `bot ${JSON.stringify(headers)}`).toBe(false)
          expect(bot.cookie, 'a held client gets no ticket').toBeUndefined()
        }
        const honest = await w.request(undefined, { headers: { [CHALLENGE_HEADER]: answer } })
        expect(honest.cookie, 'the answer is accepted: a ticket is sealed').toBeDefined()
        if (failMode === 'open') expect(honest.reason).toBe('fail-open')
        else expect(honest.admitted).toBe(false)
        // A replay of the same answer on this worker is refused: held, no ticket.
        const replay = await w.request(undefined, { headers: { [CHALLENGE_HEADER]: answer } })
        expect(replay.admitted).toBe(false)
        expect(replay.cookie).toBeUndefined()
        // The ticket carries the claim: after the outage it is never asked again.
        b.setDown(false)
        clock.now += 61_000
        const later = await w.request(honest.cookie, { headers: J })
        expect(later.body).not.toContain('"challenge":{')
      })
    }
  }

  it('an answer the coordinator accepted before the outage is refused as a replay on the same worker during it', async () => {
    const clock = { now: START }
    const b = breakable()
    const w = worker(b.c, clock, { roomId: rid('r'), jsonResponseEnabled: true, failMode: 'open', totalActiveUsers: 100, challenge: { provider: proofOfWork({ difficulty: 8 }), when: 'always' } })
    const answer = solveChallenge(await challengeOf(w))
    expect((await w.request(undefined, { headers: { [CHALLENGE_HEADER]: answer } })).admitted).toBe(true)
    b.setDown(true)
    const replay = await w.request(undefined, { headers: { [CHALLENGE_HEADER]: answer } })
    expect(replay.admitted).toBe(false)
    expect(replay.cookie).toBeUndefined()
  })

  it('generated traffic during an outage: nobody without an answer gets in; each answer is accepted at most once per worker', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom('open' as const, 'closed' as const),
        fc.constantFrom('queueing' as const, 'always' as const),
        fc.integer({ min: 1, max: 3 }),
        fc.array(fc.record({ kind: fc.constantFrom('bot', 'junk', 'answer', 'replay'), worker: fc.nat(2), dt: fc.integer({ min: 0, max: 40_000 }) }), { minLength: 1, maxLength: 25 }),
        async (failMode, when, capacity, steps) => {
          const clock = { now: START + 50_000 }
          const b = breakable()
          const opts = { roomId: rid('g'), jsonResponseEnabled: true, failMode, totalActiveUsers: capacity, challenge: { provider: proofOfWork({ difficulty: 4 }), when } }
          const workers = [worker(b.c, clock, opts), worker(b.c, clock, opts), worker(b.c, clock, opts)]
          await fill(workers[0]!, capacity)
          const answers: string[] = []
          for (let i = 0; i < steps.length; i++) answers.push(solveChallenge(await challengeOf(workers[0]!)))
          b.setDown(true)
          const accepted = new Map<string, number>() // answer@worker → accepted count
          for (const [i, step] of steps.entries()) {
            clock.now += step.dt
            const w = workers[step.worker]!
            const answer = step.kind === 'replay' ? answers[0]! : answers[i]!
            const headers: Record<string, string> = step.kind === 'bot' ? {} : step.kind === 'junk' ? { [CHALLENGE_HEADER]: 'pw1:junk' } : { [CHALLENGE_HEADER]: answer }
            const r = await w.request(undefined, { headers })
            if (step.kind === 'bot' || step.kind === 'junk') {
              expect(r.admitted).toBe(false)
              expect(r.cookie).toBeUndefined()
            } else if (r.cookie !== undefined) {
              const key = `${answer}@${step.worker}`
              accepted.set(key, (accepted.get(key) ?? 0) + 1)
              expect(accepted.get(key)).toBe(1)
            }
          }
        },
      ),
      { numRuns: 25, seed: 17 },
    )
  })
})
