/**
 * break14d — the lineage promise on the real stores (SQLite file, Redis) and memory, with client behaviours the
 * project's own lineage test does not pose: a client that ignores Set-Cookie (sends its admission cookie forever),
 * one that keeps only the first Set-Cookie of parallel answers, one that keeps every cookie and replays any of them
 * (oldest, middle, newest) — several at once on different workers; workers killed after any answer (their unsent
 * reports lost); reports stalled and released either after the step or only after the NEXT step (late, out of order).
 * Black-box checks after every step:
 * - distinct tickets served as admitted in the current minute ≤ totalActiveUsers;
 * - the room's active count (coordinator `a` fields over the session window, read by an observer's empty report)
 *   ≤ distinct tickets seen (admitted, or checking in with a cookie of theirs) in the window: one count per ticket.
 */
import { Hono } from 'hono'
import { afterAll, describe, expect, it } from 'vitest'
import { waitingRoom, type Coordinator, type WaitingRoomEnv } from '../../../src/index.ts'
import { rng } from '../break14b/procs.ts'
import { closeBackends, coordinatorFor, type Backend } from './backends.ts'
import { MINUTE, SECRET } from './slow.ts'

const START = Date.UTC(2026, 10, 30, 12, 0, 0)
const SEEDS = Number(process.env.B14D_SEEDS ?? 16)
const never = new Promise<never>(() => {})
afterAll(() => closeBackends())
type Behaviour = 'normal' | 'ignore' | 'first' | 'replayer'

function fleetMember(inner: Coordinator, clock: { now: number }, roomId: string, options: object, stalls: { on: boolean; held: (() => void)[] }) {
  let dead = false
  const coordinator: Coordinator = {
    name: 'mortal',
    increment: (r) => (dead ? never : inner.increment(r)),
    takeSlot: (r) => (dead ? never : inner.takeSlot!(r)),
    sync: async (r) => { if (stalls.on) await new Promise<void>((res) => stalls.held.push(res)); return dead ? never : inner.sync(r) },
  }
  const app = new Hono<WaitingRoomEnv>()
  app.use('*', waitingRoom({ secret: SECRET, roomId, clock: () => clock.now, coordinator, coordinatorTimeoutMs: 40, ...options }))
  app.all('*', (c) => c.text(`${c.get('waitingRoom').reason} ${c.get('waitingRoom').ticketId ?? ''}`))
  const request = async (cookie?: string) => {
    const res = await app.request('/', { headers: cookie ? { cookie: `__wroom=${cookie}` } : {} })
    const [reason, ticketId] = (await res.text()).split(' ')
    const set = res.headers.getSetCookie().find((c) => c.startsWith('__wroom='))
    return { admitted: reason === 'slot' || reason === 'session', ticketId: ticketId!, fresh: set ? set.slice(8, set.indexOf(';')) || undefined : undefined }
  }
  return { request, kill: () => (dead = true) }
}

async function activeCount(inner: Coordinator, roomId: string, now: number, session: number) {
  const state = await inner.sync({ id: crypto.randomUUID(), roomId, location: 'observer', at: now, keepMinutes: session + 6, deltas: {} })
  const minute = Math.floor(now / MINUTE)
  let count = 0
  for (const name in state.locations) for (let m = minute - session; m <= minute; m++) count += state.locations[name]!.counts[`a${m}`] ?? 0
  return count
}

async function run(backend: Backend, seed: number) {
  const random = rng(seed * 7919 + 13)
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(random() * xs.length)]!
  const limit = 2 + Math.floor(random() * 3)
  const session = pick([1, 1, 2, 5] as const)
  const roomId = `lin-${backend}-${seed}`
  const options = { totalActiveUsers: limit, newUsersPerMinute: limit, sessionDurationMinutes: session, syncIntervalMs: pick([0, 1000]) }
  const clock = { now: START + seed * 3 * 60 * MINUTE + Math.floor(random() * MINUTE) }
  const inner = await coordinatorFor(backend)
  const stalls = { on: false, held: [] as (() => void)[] }
  let late: (() => void)[] = []
  const fleet = Array.from({ length: 2 + Math.floor(random() * 2) }, () => fleetMember(inner, clock, roomId, options, stalls))
  const users = Array.from({ length: 2 * limit + 1 }, () => ({ behaviour: pick(['normal', 'ignore', 'first', 'replayer'] as const) as Behaviour, cookies: [] as string[] }))
  const ticketOf = new Map<string, string>() // cookie → ticket (learnt when it was handed out with an admission)
  const lastSeen = new Map<string, number>()
  const servedIn = new Map<number, Set<string>>()
  const out = { backend, seed, limit, session, steps: 0, replays: 0, kills: 0, stalls: 0, lates: 0 }
  const end = clock.now + (4 + 2 * session) * MINUTE
  while (clock.now < end) {
    out.steps++
    clock.now += Math.floor(random() * 15_000)
    const minute = Math.floor(clock.now / MINUTE)
    stalls.on = random() < 0.2
    if (stalls.on) out.stalls++
    const user = pick(users)
    const parallel = random() < 0.3 ? 2 + Math.floor(random() * 2) : 1
    const cookies = Array.from({ length: parallel }, () => {
      if (user.cookies.length === 0) return undefined
      if (user.behaviour === 'replayer') { out.replays++; return pick(user.cookies) }
      return user.cookies.at(-1)
    })
    for (const c of cookies) { const t = c && ticketOf.get(c); if (t) lastSeen.set(t, minute) }
    const at = cookies.map(() => Math.floor(random() * fleet.length))
    const answers = await Promise.all(cookies.map((c, i) => fleet[at[i]!]!.request(c)))
    stalls.on = false
    const releases = stalls.held.splice(0)
    if (random() < 0.5) { for (const r of releases) r() } else { late.push(...releases); out.lates += releases.length }
    let kept = false
    for (const a of answers) {
      if (a.admitted) {
        servedIn.set(minute, (servedIn.get(minute) ?? new Set()).add(a.ticketId))
        lastSeen.set(a.ticketId, minute)
        if (a.fresh) ticketOf.set(a.fresh, a.ticketId)
      }
      if (!a.fresh) continue
      const sameTicket = a.admitted && user.cookies.length > 0 && ticketOf.get(user.cookies.at(-1)!) === a.ticketId
      if (user.behaviour === 'ignore' && user.cookies.length > 0 && ticketOf.has(user.cookies[0]!)) continue
      if (user.behaviour === 'first' && kept) continue
      kept = true
      if (sameTicket) user.cookies.push(a.fresh)
      else user.cookies = [a.fresh]
    }
    if (random() < 0.15) { const i = pick(at); fleet[i]!.kill(); fleet[i] = fleetMember(inner, clock, roomId, options, stalls); out.kills++ }
    await new Promise((r) => setTimeout(r, 5))
    // the previous step's late reports land now, after this step's requests
    const landing = late; late = []
    if (random() < 0.7) for (const r of landing) r(); else late = landing
    await new Promise((r) => setTimeout(r, backend === 'memory' ? 2 : 15))
    const count = await activeCount(inner, roomId, clock.now, session)
    const seen = [...lastSeen.values()].filter((m) => m >= minute - session).length
    const served = servedIn.get(minute)?.size ?? 0
    if (served > limit || count > seen) return { ...out, fail: { served, count, seen, minute: minute - Math.floor(START / MINUTE) } }
  }
  for (const r of late) r()
  return out
}

describe.concurrent('break14d: one count per ticket, generated clients on the real stores', () => {
  for (const backend of ['memory', 'sqlite', 'redis'] as const) {
    it(`${backend}: generated seeds (16; Redis 10)`, async () => {
      const bad: string[] = []
      const totals = { replays: 0, kills: 0, lates: 0 }
      for (let seed = 1; seed <= (backend === 'redis' ? Math.min(SEEDS, 10) : SEEDS); seed++) {
        const t0 = Date.now()
        const out = await run(backend, seed)
        totals.replays += out.replays; totals.kills += out.kills; totals.lates += out.lates
        if (process.env.B14D_VERBOSE) console.log(backend, seed, Date.now() - t0, out.steps)
        if ('fail' in out) bad.push(JSON.stringify(out))
      }
      console.log(backend, totals)
      expect(bad).toEqual([])
      expect(totals.replays).toBeGreaterThan(20)
      expect(totals.kills).toBeGreaterThan(20)
      expect(totals.lates).toBeGreaterThan(5)
    }, 90_000)
  }
})
