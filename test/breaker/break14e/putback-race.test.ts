/**
 * break14e — pending renewals put back by several workers at once, beside newcomers, after the worker that recorded
 * their moves was killed during an outage (issue 14 item 3: "a SIGKILL at any moment never lets the room exceed
 * totalActiveUsers afterwards").
 * Attack (generated: room of 3–8, 1–3 workers the users come back to, 1- or 2-minute sessions, several seeds, memory,
 * SQLite and Redis): n users admitted at A; in their confirmed cookie's last minute they all renew at B while the
 * store fails for B — pending cookies, moves unsent — and B dies. The next minute their counts have left the window:
 * n newcomers and the n users come at once, spread over A and the other workers.
 * Before: a worker asked for a put-back while its own snapshot showed a free place, and the coordinator put the
 * ticket back unconditionally — every worker's snapshot showed an empty room, so up to n put-backs joined n
 * newcomers: 5–13 served in rooms of 3–8, in every seed on all three backends. Now a put-back is a grant: the same
 * counter step bounds it with the newcomers. The workers are warm (a cold worker's first grants are another matter:
 * README Known limits); the control shows 2n newcomers alone held to n.
 */
import { afterAll, describe, expect, it } from 'vitest'
import { closeBackends, coordinatorFor, type Backend } from '../break14d/backends.ts'
import type { Coordinator } from '../../../src/index.ts'
import { MINUTE, worker } from './support.ts'

afterAll(() => closeBackends())

/** A link that fails every call once `down` is set (B's store outage; after it, B is dead: it sends nothing). */
function downable(inner: Coordinator, state: { down: boolean }): Coordinator {
  const gate = <T>(f: () => Promise<T>): Promise<T> => (state.down ? Promise.reject(new Error('down')) : f())
  return { name: 'downable', increment: (r) => gate(() => inner.increment(r)), takeSlot: (r) => gate(() => inner.takeSlot!(r)), sync: (r) => gate(() => inner.sync(r)) }
}

function rng(seed: number) {
  let x = seed * 2654435761 + 1
  return () => ((x = (Math.imul(x ^ (x >>> 15), 2246822507) + 0x6d2b79f5) >>> 0) / 2 ** 32)
}

async function run(backend: Backend, seed: number, control = false) {
  const random = rng(seed)
  const n = 3 + Math.floor(random() * 6)
  const fleet = 1 + Math.floor(random() * 3)
  const session = 1 + Math.floor(random() * 2)
  const inner = await coordinatorFor(backend)
  const m = 29_100_000 + seed * 10
  const clock = { now: m * MINUTE + 5_000 }
  const options = { totalActiveUsers: n, newUsersPerMinute: n, sessionDurationMinutes: session, failMode: 'closed' as const, coordinatorTimeoutMs: 400, syncIntervalMs: 0 }
  const roomId = `b14e-putback-${backend}-${seed}-${Date.now()}`
  const A = worker(inner, clock, roomId, options)
  const bLink = { down: false }
  const B = worker(downable(inner, bLink), clock, roomId, options)
  const users: { cookie: string | undefined; ticket: string }[] = []
  for (let i = 0; i < n; i++) {
    const r = await A(undefined)
    if (!r.admitted) throw new Error('setup: not admitted')
    users.push({ cookie: r.fresh, ticket: r.ticketId })
  }
  await B(users[0]!.cookie) // B learns the room (same minute: no renewal)
  // The workers the users come back to are warm: a snapshot of their own (a newcomer queued in the full room).
  const others = Array.from({ length: fleet }, () => worker(inner, clock, roomId, options))
  for (const w of others) if ((await w(undefined)).admitted) throw new Error('setup: the room is full')
  // The confirmed cookie's last minute: every renewal at B, whose store fails — pending cookies; then B dies.
  clock.now = (m + session) * MINUTE + 5_000 + Math.floor(random() * 50_000)
  bLink.down = true
  const renewed = await Promise.all(users.map((u) => B(u.cookie)))
  renewed.forEach((r, i) => { if (r.admitted && r.fresh) users[i]!.cookie = r.fresh })
  // The next minute: the counts of minute m have left the window. Newcomers and the users at once, anywhere.
  clock.now = (m + session + 1) * MINUTE + 5_000 + Math.floor(random() * 50_000)
  const fleetOf = [A, ...others]
  const at = () => fleetOf[Math.floor(random() * fleetOf.length)]!
  const calls = [...(control ? [] : users.map((u) => ({ u, w: at() }))), ...Array.from({ length: control ? 2 * n : n }, () => ({ u: undefined, w: at() }))].sort(() => random() - 0.5)
  const answers = await Promise.all(calls.map(({ u, w }) => w(u?.cookie).then((r) => ({ r, u }))))
  const newcomers = answers.filter(({ r, u }) => !u && r.admitted).length
  const back = answers.filter(({ r, u }) => u && r.admitted && r.ticketId === u.ticket).length
  const fresh = answers.filter(({ r, u }) => u && r.admitted && r.ticketId !== u.ticket).length
  return { backend, seed, n, fleet, session, pendingGiven: renewed.filter((r) => r.admitted).length, newcomers, back, fresh, served: newcomers + back + fresh }
}

describe('break14e: put-backs of pending renewals and newcomers together never exceed totalActiveUsers', () => {
  const seeds: Record<Backend, number> = { memory: 12, sqlite: 6, redis: 6 }
  for (const backend of ['memory', 'sqlite', 'redis'] as const) {
    it(`${backend}: ${seeds[backend]} generated rooms, the renewing worker killed during an outage`, async () => {
      const over: string[] = []
      for (let seed = 1; seed <= seeds[backend]; seed++) {
        const out = await run(backend, seed)
        expect(out.pendingGiven, 'every renewal was served pending (not vacuous)').toBe(out.n)
        if (out.served > out.n) over.push(JSON.stringify(out))
      }
      expect(over).toEqual([])
    }, 60_000)
  }
  it('control (holds): 2n newcomers alone, no put-back', async () => {
    const over: string[] = []
    for (let seed = 1; seed <= 12; seed++) { const out = await run('memory', seed, true); if (out.served > out.n) over.push(JSON.stringify(out)) }
    expect(over).toEqual([])
  })
})
