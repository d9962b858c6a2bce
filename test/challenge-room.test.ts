/**
 * The `challenge` option through the middleware (fake clock, in-memory coordinator): a user who answers is
 * queued and admitted with the claim sealed in the ticket and never asked again; one who skips or fails is
 * held in the infinite queue — never admitted, no ticket, counted nowhere — or, with `onFail: 'log'`, let on
 * and counted; replays are refused; JSON clients get the challenge; `/metrics` shows it all.
 */
import { Hono } from 'hono'
import { describe, expect, it } from 'vitest'
import { CHALLENGE_HEADER, proofOfWork, solveChallenge, waitingRoom, waitingRoomAdmin, type ChallengeProvider, type WaitingRoomOptions } from '../src/index.ts'
import { roomHarness, START, TEST_SECRET } from './support/room-harness.ts'

const MINUTE = 60_000
const JSON_ACCEPT = { accept: 'application/json' }

const TOKEN = 'token-0123456789abcdef'
const adminOf = (room: ReturnType<typeof roomHarness>) => new Hono().route('/', waitingRoomAdmin({ room: room.room } as never, { token: TOKEN }))
const adminGet = (room: ReturnType<typeof roomHarness>, path: string) => adminOf(room).request(path, { headers: { authorization: `Bearer ${TOKEN}` } })
/** `estimatedQueuedUsers` from the admin API's status. */
const queuedUsers = async (room: ReturnType<typeof roomHarness>): Promise<number> => ((await (await adminGet(room, '/status')).json()) as { estimatedQueuedUsers: number }).estimatedQueuedUsers

function challengeRoom(challenge: WaitingRoomOptions['challenge'], more: WaitingRoomOptions = {}) {
  return roomHarness({ roomId: `ch-${Math.random().toString(36).slice(2)}`, totalActiveUsers: 1, newUsersPerMinute: 100, jsonResponseEnabled: true, challenge, ...more })
}

/** The challenge a JSON client is given, solved. */
async function solvedAnswer(room: ReturnType<typeof roomHarness>, cookie?: string): Promise<string> {
  const held = await room.visit(cookie, { headers: JSON_ACCEPT })
  const challenge = (JSON.parse(held.body) as { waitingRoom: { challenge: { challenge: string; header: string } } }).waitingRoom.challenge
  expect(challenge.header).toBe(CHALLENGE_HEADER)
  return solveChallenge(challenge.challenge)
}

describe('proof of work, infinite queue, when queueing', () => {
  it('lets a user in unchallenged while places are free; holds a skipping client without counting it', async () => {
    const room = challengeRoom({ provider: proofOfWork({ difficulty: 8 }) })
    const first = await room.visit()
    expect(first.outcome).toBe('admitted')
    const queuedBefore = await queuedUsers(room)
    for (let i = 0; i < 20; i++) {
      const held = await room.visit()
      expect(held.outcome).toBe('queued')
      expect(held.response.headers.get('set-cookie')).toBeNull()
      expect(held.body).toContain('You are now in line')
      expect(held.body).toContain('id="wr-challenge"')
      expect(held.body).toMatch(/<strong id="wait-time">about \d+ minutes?<\/strong>/) // an ordinary estimate
      expect(Number(held.response.headers.get('refresh'))).toBeGreaterThanOrEqual(20)
    }
    room.advance(5_000)
    expect(await queuedUsers(room)).toBe(queuedBefore)
    expect(room.room.metrics.decisions.challenge).toBe(20)
    expect(room.room.metrics.challenge).toMatchObject({ held: 20, issued: 20, solved: 0 })
  })

  it('queues a user who answers, with the claim sealed: never asked again, admitted when a place frees', async () => {
    const room = challengeRoom({ provider: proofOfWork({ difficulty: 8 }) }, { sessionDurationMinutes: 1, refreshIntervalSeconds: 5 })
    await room.visit() // takes the only place
    const answer = await solvedAnswer(room)
    room.advance(3_000)
    const queued = await room.visit(undefined, { headers: { [CHALLENGE_HEADER]: answer } })
    expect(queued.outcome).toBe('queued')
    expect(queued.cookie).toBeDefined()
    expect(queued.body).not.toContain('wr-challenge')
    expect(await queuedUsers(room)).toBe(1)
    expect(room.room.metrics.challenge.solved).toBe(1)
    expect(room.room.metrics.challenge.solveCount).toBe(1)
    expect(room.room.metrics.challenge.solveSeconds).toBe(3)

    // The same answer again, from a client without the ticket: a replay, held.
    const replay = await room.visit(undefined, { headers: { [CHALLENGE_HEADER]: answer } })
    expect(replay.response.headers.get('set-cookie')).toBeNull()
    expect(room.room.metrics.challenge.replayed).toBe(1)

    // The first session ends; the answered user checks in and is admitted, and stays in with no challenge.
    let cookie = queued.cookie
    let outcome = 'queued'
    for (let i = 0; i < 60 && outcome !== 'admitted'; i++) {
      room.advance(5_000)
      const visit = await room.visit(cookie)
      expect(visit.body).not.toContain('wr-challenge')
      cookie = visit.cookie
      outcome = visit.outcome
    }
    expect(outcome).toBe('admitted')
    const session = await room.visit(cookie)
    expect(session.outcome).toBe('admitted')
    expect(room.room.metrics.challenge.issued).toBe(2) // the JSON one and the replay's held page
  })

  it('refuses forged, foreign and garbage answers (held, counted as failed by reason), and a bad cookie makes a new user', async () => {
    const room = challengeRoom({ provider: proofOfWork({ difficulty: 8 }) })
    await room.visit()
    const answer = await solvedAnswer(room)
    const other = challengeRoom({ provider: proofOfWork({ difficulty: 8 }) }, { secret: 'another-secret-0123456789-abcdefghijkl' })
    await other.visit()
    const foreign = await solvedAnswer(other)
    const forged = answer.replace(/:8:/, ':1:')
    for (const bad of [forged, foreign, 'garbage', `${answer}0`, 'x'.repeat(5000)]) {
      const visit = await room.visit(undefined, { headers: { [CHALLENGE_HEADER]: bad } })
      expect(visit.response.headers.get('set-cookie')).toBeNull()
      expect(visit.status).toBe(200)
    }
    const bogusCookie = await room.visit('not-a-ticket')
    expect(bogusCookie.status).toBe(200)
    expect(room.room.metrics.challenge.failed).toMatchObject({ forged: 1, 'wrong-room': 1, malformed: 2 })
    expect(room.room.metrics.challenge.solved).toBe(0)
    expect(await queuedUsers(room)).toBe(0)
  })
})

describe("when: 'always'", () => {
  it('holds every new user without an answer even with free places; an answer admits at once, with the claim', async () => {
    const room = challengeRoom({ provider: proofOfWork({ difficulty: 8 }), when: 'always' }, { totalActiveUsers: 1000 })
    for (let i = 0; i < 50; i++) expect((await room.visit()).outcome).toBe('queued')
    expect(room.coordinator.calls.increment).toBe(0) // held before any counter
    const answer = await solvedAnswer(room)
    const admitted = await room.visit(undefined, { headers: { [CHALLENGE_HEADER]: answer } })
    expect(admitted.outcome).toBe('admitted')
    room.advance(2 * MINUTE) // renewed: the claim travels with the ticket
    const renewed = await room.visit(admitted.cookie)
    expect(renewed.outcome).toBe('admitted')
    expect((await room.visit(renewed.cookie)).outcome).toBe('admitted')
  })
})

describe("onFail: 'log'", () => {
  it('queues and counts a client that skips, shows it the challenge, and counts a bad answer as failed', async () => {
    const room = challengeRoom({ provider: proofOfWork({ difficulty: 8 }), onFail: 'log' })
    await room.visit()
    const queued = await room.visit()
    expect(queued.cookie).toBeDefined()
    expect(queued.body).toContain('wr-challenge')
    expect(await queuedUsers(room)).toBe(1)
    const warn = console.warn
    const lines: string[] = []
    console.warn = (line: string) => lines.push(line)
    try {
      await room.visit(undefined, { headers: { [CHALLENGE_HEADER]: 'nonsense' } })
    } finally {
      console.warn = warn
    }
    expect(lines.join('\n')).toMatch(/challenge answer\(s\) refused \(last: malformed\); onFail 'log'/)
    expect(await queuedUsers(room)).toBe(2)
    // Every request let on without a verified answer: the free place's user too (admitted unchallenged).
    expect(room.room.metrics.challenge).toMatchObject({ logged: 3, held: 0 })
    expect(room.room.metrics.challenge.failed.malformed).toBe(1)
  })
})

describe('a custom provider', () => {
  it('puts its widget on the page and admits on its verdict', async () => {
    const seen: string[] = []
    const provider: ChallengeProvider = {
      widget: (v) => `<p id="custom">answer ${String(v.challenge.provider)} in ${String(v.challenge.header)}</p>`,
      verify: (_c, answer) => {
        seen.push(answer)
        return answer === 'open sesame'
      },
    }
    const room = challengeRoom({ provider, when: 'always' }, { totalActiveUsers: 10 })
    const held = await room.visit()
    expect(held.body).toContain('<p id="custom">answer custom in Waiting-Room-Challenge</p>')
    expect(held.body).toContain('waitingRoomChallengeSolved')
    expect((await room.visit(undefined, { headers: { [CHALLENGE_HEADER]: 'wrong' } })).outcome).toBe('queued')
    expect((await room.visit(undefined, { headers: { [CHALLENGE_HEADER]: 'open sesame' } })).outcome).toBe('admitted')
    expect(seen).toEqual(['wrong', 'open sesame'])
    expect(room.room.metrics.challenge.failed.refused).toBe(1)
  })

  it('a provider that throws refuses the answer as unavailable, never a 500', async () => {
    const provider: ChallengeProvider = { widget: () => '', verify: () => Promise.reject(new Error('down')) }
    const room = challengeRoom({ provider, when: 'always' }, { totalActiveUsers: 10 })
    const visit = await room.visit(undefined, { headers: { [CHALLENGE_HEADER]: 'x' } })
    expect(visit.status).toBe(200)
    expect(room.room.metrics.challenge.failed.unavailable).toBe(1)
  })
})

describe('options and metrics', () => {
  it('throws at build time naming the field and what it allows', () => {
    const base = { secret: TEST_SECRET }
    expect(() => waitingRoom({ ...base, challenge: { provider: {} as ChallengeProvider } })).toThrow(/challenge\.provider: expected a challenge provider/)
    expect(() => waitingRoom({ ...base, challenge: { provider: proofOfWork(), onFail: 'ban' as never } })).toThrow(/challenge\.onFail/)
    expect(() => waitingRoom({ ...base, challenge: { provider: proofOfWork(), mode: 'loud' as never } })).toThrow(/challenge\.mode/)
    expect(() => waitingRoom({ ...base, challenge: { provider: proofOfWork(), when: 'never' as never } })).toThrow(/challenge\.when/)
    expect(() => waitingRoom({ ...base, challenge: { provider: proofOfWork(), extra: 1 } as never })).toThrow(/challenge/)
  })

  it('serves issued, solved, failed, replayed and the time-to-solve histogram in /metrics', async () => {
    const room = challengeRoom({ provider: proofOfWork({ difficulty: 6 }) })
    await room.visit()
    const answer = await solvedAnswer(room)
    room.advance(1_500)
    await room.visit(undefined, { headers: { [CHALLENGE_HEADER]: answer } })
    await room.visit(undefined, { headers: { [CHALLENGE_HEADER]: answer } })
    await room.visit(undefined, { headers: { [CHALLENGE_HEADER]: 'bad' } })
    const text = await (await adminGet(room, '/metrics')).text()
    const id = room.room.roomId
    expect(text).toContain(`waiting_room_challenges_issued_total{room="${id}"} 3`)
    expect(text).toContain(`waiting_room_challenges_solved_total{room="${id}"} 1`)
    expect(text).toContain(`waiting_room_challenges_replayed_total{room="${id}"} 1`)
    expect(text).toContain(`waiting_room_challenges_failed_total{room="${id}",reason="malformed"} 1`)
    expect(text).toContain('# TYPE waiting_room_challenge_solve_seconds histogram')
    expect(text).toContain(`waiting_room_challenge_solve_seconds_bucket{room="${id}",le="1"} 0`)
    expect(text).toContain(`waiting_room_challenge_solve_seconds_bucket{room="${id}",le="2"} 1`)
    expect(text).toContain(`waiting_room_challenge_solve_seconds_bucket{room="${id}",le="+Inf"} 1`)
    expect(text).toContain(`waiting_room_challenge_solve_seconds_sum{room="${id}"} 1.5`)
    expect(text).toContain(`waiting_room_challenge_solve_seconds_count{room="${id}"} 1`)
    expect(text).toContain(`waiting_room_decisions_total{room="${id}",outcome="queued",reason="challenge"} 3`)
    // The same outcomes, per minute, in the analytics history (its open extra counters).
    const answer2 = await adminGet(room, `/analytics?from=${START}&to=${START + 5 * MINUTE}`)
    const history = (await answer2.json()) as { totals: { extra: Record<string, number> } }
    expect(answer2.status, JSON.stringify(history)).toBe(200)
    expect(history.totals.extra).toEqual({ 'challenge.issued': 3, 'challenge.held': 3, 'challenge.solved': 1, 'challenge.replayed': 1, 'challenge.failed': 1 })
  })

  it('the admin preview shows the challenge (HTML and JSON) without counting or arming it; challenge=false hides it', async () => {
    const room = challengeRoom({ provider: proofOfWork({ difficulty: 9 }) })
    const html = await (await adminGet(room, '/preview')).text()
    expect(html).toContain('id="wr-challenge"')
    expect(html).toContain('data-difficulty="9"')
    expect(html).toContain('window.waitingRoomChallengeSolved=function(){}') // a preview never sends an answer
    expect(html).not.toContain('fetch(location.href')
    const json = (await (await adminOf(room).request('/preview', { headers: { authorization: `Bearer ${TOKEN}`, accept: 'application/json' } })).json()) as {
      waitingRoom: { challenge: Record<string, unknown>; challengeWidget?: string }
    }
    expect(json.waitingRoom.challenge).toMatchObject({ provider: 'proof-of-work', difficulty: 9, mode: 'invisible', header: CHALLENGE_HEADER })
    expect(json.waitingRoom.challengeWidget).toBeUndefined()
    // Signed with a throwaway key: its answer is refused by the room.
    await room.visit()
    const answer = solveChallenge(String(json.waitingRoom.challenge.challenge))
    expect((await room.visit(undefined, { headers: { [CHALLENGE_HEADER]: answer } })).cookie).toBeUndefined()
    expect(room.room.metrics.challenge.failed.forged).toBe(1)
    expect(await (await adminGet(room, '/preview?challenge=false')).text()).not.toContain('wr-challenge')
    expect(room.room.metrics.challenge.issued).toBe(1) // the held page above; previews are not counted
  })

  it('a room without the option shows no challenge and no challenge metrics', async () => {
    const room = roomHarness({ totalActiveUsers: 1 })
    await room.visit()
    expect((await room.visit()).body).not.toContain('wr-challenge')
    const text = await (await adminGet(room, '/metrics')).text()
    expect(text).toContain('waiting_room_decisions_total{room="default",outcome="queued",reason="challenge"} 0')
    expect(text).not.toMatch(/challenges_|challenge_solve/)
  })
})

void START
