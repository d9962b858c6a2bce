/**
 * break14d — revocations count once, whichever cookie of a renewed lineage carries them. n users admitted in a
 * room of n; one user renews across minutes (its count moved by the register) keeping every cookie; then the
 * origin revokes it on a request carrying its oldest, a middle, its newest, or ALL its cookies at once on different
 * workers (generated), possibly while another worker renews it with an older cookie in the same step. The other
 * n−1 users keep checking in once a minute; n newcomers knock every minute. Expected, every minute after: distinct
 * tickets served ≤ n (one place freed, never two). Memory, SQLite, Redis; 10 seeds each. HOLDS. Seen meanwhile
 * (documented, so not counted here): the revoked ticket itself passes a stale worker once, ~30 s after the revocation,
 * and that worker renews it into the new minute (an over-count: README Known limits); later requests are refused.
 */
import { Hono } from 'hono'
import { afterAll, describe, expect, it } from 'vitest'
import { waitingRoom, type Coordinator, type WaitingRoomEnv } from '../../../src/index.ts'
import { rng } from '../break14b/procs.ts'
import { closeBackends, coordinatorFor, type Backend } from './backends.ts'
import { MINUTE, SECRET } from './slow.ts'

const START = Date.UTC(2026, 10, 30, 12, 0, 0)
afterAll(() => closeBackends())
const settle = (ms = 20) => new Promise((r) => setTimeout(r, ms))

function member(coordinator: Coordinator, clock: { now: number }, roomId: string, options: object) {
  const app = new Hono<WaitingRoomEnv>()
  app.use('*', waitingRoom({ secret: SECRET, roomId, clock: () => clock.now, coordinator, enabledOriginCommands: ['revoke'], ...options }))
  app.all('*', (c) => {
    const wr = c.get('waitingRoom')
    if (c.req.header('x-revoke')) c.header('Waiting-Room-Command', 'revoke')
    return c.text(`${wr.reason} ${wr.ticketId ?? ''}`)
  })
  return async (cookie?: string, revoke = false) => {
    const res = await app.request('/', { headers: { ...(cookie ? { cookie: `__wroom=${cookie}` } : {}), ...(revoke ? { 'x-revoke': '1' } : {}) } })
    const [reason, ticketId] = (await res.text()).split(' ')
    const set = res.headers.getSetCookie().find((c) => c.startsWith('__wroom='))
    if (process.env.B14D_TRACE) console.log(`T ${new Date(clock.now).toISOString().slice(11, 19)} ${cookie ? 'cookie ' + cookie.slice(-6) : 'none'}${revoke ? ' REVOKE' : ''} -> ${reason?.slice(0, 9)} ${ticketId?.slice(0, 6)} ${set ? 'set ' + set.slice(8, set.indexOf(';')).slice(-6) : ''}`)
    return { admitted: reason === 'slot' || reason === 'session', ticketId: ticketId!, fresh: set ? set.slice(8, set.indexOf(';')) || undefined : undefined }
  }
}

async function run(backend: Backend, seed: number) {
  const random = rng(seed * 104729 + 7)
  const n = 3 + Math.floor(random() * 3)
  const session = [1, 2, 5][Math.floor(random() * 3)]!
  const clock = { now: START + seed * 5 * 60 * MINUTE + 1_000 + Math.floor(random() * 30_000) }
  const inner = await coordinatorFor(backend)
  const roomId = `rv-${backend}-${seed}`
  const options = { totalActiveUsers: n, newUsersPerMinute: n, sessionDurationMinutes: session, syncIntervalMs: 0 }
  const fleet = [0, 1, 2].map(() => member(inner, clock, roomId, options))
  const users: string[][] = []
  const tickets: string[] = []
  for (let i = 0; i < n; i++) { const r = await fleet[0]!(); if (!r.admitted) throw new Error('setup'); users.push([r.fresh!]); tickets.push(r.ticketId) }
  await settle()
  const m0 = Math.floor(clock.now / MINUTE)
  const renewals = 1 + Math.floor(random() * Math.min(session, 3))
  for (let k = 1; k <= renewals; k++) {
    clock.now = (m0 + k) * MINUTE + Math.floor(random() * 55_000)
    for (let i = 0; i < n; i++) {
      const r = await fleet[Math.floor(random() * 3)]!(users[i]!.at(-1))
      if (r.admitted && r.ticketId === tickets[i] && r.fresh) users[i]!.push(r.fresh)
    }
    await settle()
  }
  // revoke user 0 with a generated choice of its cookies, maybe while an older cookie renews elsewhere
  const lineage = users[0]!
  const choice = Math.floor(random() * 4)
  const carry = choice === 0 ? [lineage[0]!] : choice === 1 ? [lineage[Math.floor(lineage.length / 2)]!] : choice === 2 ? [lineage.at(-1)!] : lineage
  clock.now += Math.floor(random() * 50_000)
  const racing = random() < 0.5 ? [fleet[Math.floor(random() * 3)]!(lineage[0])] : []
  await Promise.all([...carry.map((c, i) => fleet[i % 3]!(c, true)), ...racing])
  await settle(40)
  const over: string[] = []
  const granted = new Map<string, number>() // new tickets (newcomers, or the revoked user let in again as a new user) → minute
  const mr = Math.floor(clock.now / MINUTE)
  for (let m = mr + 1; m <= mr + session + 2; m++) {
    clock.now = m * MINUTE + 1_000 + Math.floor(random() * 40_000)
    let staying = 0
    for (let i = 1; i < n; i++) {
      const r = await fleet[Math.floor(random() * 3)]!(users[i]!.at(-1))
      if (r.admitted && r.ticketId === tickets[i]) { staying++; if (r.fresh) users[i]!.push(r.fresh) }
      else if (r.admitted) granted.set(r.ticketId, m)
    }
    // the revoked user tries every cookie; its own ticket may pass a stale worker once (documented), a new ticket holds a place
    for (const c of lineage) { const r = await fleet[Math.floor(random() * 3)]!(c); if (r.admitted && r.ticketId !== tickets[0]) granted.set(r.ticketId, m) }
    for (let j = 0; j < n; j++) { const r = await fleet[j % 3]!(); if (r.admitted) granted.set(r.ticketId, m) }
    await settle()
    // a ticket granted in minute g holds its place through g + session: those and the staying users fit in the room
    const holding = [...granted.values()].filter((g) => g >= m - session).length
    if (staying + holding > n) over.push(`+${m - m0}: ${staying} staying users + ${holding} new tickets holding places in a room of ${n}`)
  }
  return { backend, seed, n, session, renewals, choice, racing: racing.length, over }
}

describe.concurrent('break14d: a revocation frees one place, whichever cookies of the lineage carry it', () => {
  for (const backend of ['memory', 'sqlite', 'redis'] as const) {
    it(`${backend}: 10 seeds`, async () => {
      const bad: string[] = []
      for (let seed = Number(process.env.B14D_SEED ?? 1); seed <= Number(process.env.B14D_SEED ?? 10); seed++) { const t0 = Date.now(); const out = await run(backend, seed); if (process.env.B14D_VERBOSE) console.log(backend, seed, Date.now() - t0, JSON.stringify(out)); if (out.over.length) bad.push(JSON.stringify(out)) }
      expect(bad).toEqual([])
    }, 60_000)
  }
})
