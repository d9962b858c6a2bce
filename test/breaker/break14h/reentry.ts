/**
 * break14h support: a room where user U's count ended during an outage, so its pending cookie re-enters through the
 * grant step (as break14g reenter-replay). The store fails for worker A only (A is then SIGKILLed: its moves never
 * land); B, C, D reach it. Every cookie U was ever handed is kept; a spy counts the grant step's fresh grants to U's
 * re-entries, and `activeIn(minute)` reads how many users the store counts at positions in a minute.
 */
import type { Coordinator } from '../../../src/index.ts'
import { fieldMinute } from '../../../src/coordination/state.ts'
import { coordinatorFor, type Backend } from '../break14d/backends.ts'
import { MINUTE, sleep } from '../break14d/slow.ts'
import { locatedWorker } from './located.ts'

function failing(inner: Coordinator, down: { on: boolean }): Coordinator {
  const gate = <R>(f: () => Promise<R>): Promise<R> => (down.on ? Promise.reject(new Error('down')) : f())
  return { name: 'failing', fixesReferences: inner.fixesReferences, increment: (r) => gate(() => inner.increment(r)), takeSlot: (r) => gate(() => inner.takeSlot!(r)), sync: (r) => gate(() => inner.sync(r)) }
}

export interface RoomCase { backend: Backend; S: number; outage: number; n: number; pre: number }

export async function reentryRoom({ backend, S, outage, n, pre }: RoomCase) {
  const inner = await coordinatorFor(backend)
  const down = { on: false }
  const m = 29_800_000 + Math.floor(Math.random() * 5000) * 20
  const clock = { now: m * MINUTE + 1_000 }
  const options = { totalActiveUsers: 40, newUsersPerMinute: n, sessionDurationMinutes: S, failMode: 'closed' as const, coordinatorTimeoutMs: 300, syncIntervalMs: 50 }
  const roomId = `b14h-reentry-${backend}-${crypto.randomUUID().slice(0, 6)}`
  const grants: string[] = []
  // grant: 'fail' throws before the store is asked; 'late' applies it, then answers `lateMs` late (past the timeout).
  const grant = { mode: 'ok' as 'ok' | 'fail' | 'late', lateMs: 600 }
  const spy: Coordinator = {
    ...inner, name: 'spy', increment: (r) => inner.increment(r), sync: (r) => inner.sync(r),
    takeSlot: async (r) => {
      if (grant.mode === 'fail') throw new Error('grant step down')
      const a = await inner.takeSlot!(r)
      if (r.reentry && a.admitted && !a.repeat) grants.push(`${r.minute}:${r.location}:${a.via}`)
      if (grant.mode === 'late') await sleep(grant.lateMs)
      return a
    },
  }
  const A = locatedWorker(failing(inner, down), clock, roomId, options)
  const B = locatedWorker(spy, clock, roomId, options)
  const C = locatedWorker(spy, clock, roomId, options)
  const D = locatedWorker(spy, clock, roomId, options)
  const first = await B('L0')
  const ticket = first.ticketId
  const cookies: string[] = [first.fresh!]
  let cookie = first.fresh!
  for (let j = 1; j <= pre; j++) { // renewals before the outage: confirmed cookies, a register
    clock.now = (m + j) * MINUTE + 1_000
    const r = await B('L0', cookie)
    if (!r.admitted) throw new Error('setup: U not renewed')
    if (r.fresh) { cookie = r.fresh; cookies.push(cookie) }
    await sleep(20)
  }
  await A('L0', cookie)
  down.on = true
  let pending: string | undefined
  for (let k = pre + 1; k <= pre + S + outage; k++) {
    clock.now = (m + k) * MINUTE + 1_000
    const r = await A('L0', cookie)
    if (!r.admitted || r.ticketId !== ticket) throw new Error(`setup: U logged out during the outage at +${k}`)
    if (r.fresh) { cookie = r.fresh; pending = r.fresh; cookies.push(cookie) }
    // The comeback minute's reference minute: 30 arrivals at L0 and L1, so both locations' counters get a share.
    if (k === pre + S + outage - 1) await Promise.all(Array.from({ length: 30 }, (_, i) => (i % 2 ? C('L1') : B('L0'))))
    await sleep(20)
  }
  if (!pending) throw new Error('setup: no pending cookie')
  const back = m + pre + S + outage + 1
  const activeIn = async (minute: number) => {
    await sleep(300) // the workers' reports land
    const state = await inner.sync({ id: crypto.randomUUID(), roomId, location: 'L0', at: clock.now, keepMinutes: S + 6, deltas: {} })
    let active = 0
    // Counts sit at positions within their minute (src/coordination/positions.ts): a{minute} or a{minute + k/16}.
    for (const name in state.locations) {
      for (const [field, value] of Object.entries(state.locations[name]!.counts)) if (field.startsWith('a') && fieldMinute(field) === minute) active += value
    }
    return active
  }
  return { B, C, D, clock, ticket, cookies, pending, back, grants, activeIn, spy, roomId, options, grant }
}
