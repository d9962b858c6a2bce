/**
 * break14h — a store outage DURING the re-entry: U's pending cookie P re-enters in the comeback minute K, but the grant
 * step fails (throws: 'fail') or answers after coordinatorTimeoutMs having applied the grant ('late'). Promise: U
 * stays (pending kept, README "a grant step that cannot be asked … keeps the renewal pending"), and U is counted
 * once afterwards, however its cookies (P, the pending cookie of K, the confirmed one of K + 1) are replayed, at once
 * over three workers in K + 1 and again in K + 2.
 * HELD on memory, SQLite and Redis (both modes): U never logged out, one place (see the report for figures).
 */
import { afterAll, describe, expect, it } from 'vitest'
import { closeBackends, type Backend } from '../break14d/backends.ts'
import { MINUTE, sleep } from '../break14d/slow.ts'
import { reentryRoom } from './reentry.ts'

afterAll(async () => { await sleep(300); await closeBackends() })

async function run(backend: Backend, mode: 'fail' | 'late', S: number) {
  const room = await reentryRoom({ backend, S, outage: 1, n: 6, pre: 0 })
  const { B, C, D, clock, ticket, pending, back, grants, grant } = room
  clock.now = back * MINUTE + 1_000
  grant.mode = mode
  const during = await B('L0', pending)
  grant.mode = 'ok'
  await sleep(mode === 'late' ? grant.lateMs + 100 : 50)
  const cookies = [pending, ...(during.fresh ? [during.fresh] : [])]
  let out = during.admitted && during.ticketId === ticket ? 0 : 1
  let current = during.fresh ?? pending
  for (let k = 1; k <= 2; k++) {
    clock.now = (back + k) * MINUTE + 1_000
    const [mine, ...rest] = await Promise.all([B('L0', current), ...cookies.map((c, i) => [C, D][i % 2]!('L0', c))])
    if (!mine!.admitted || mine!.ticketId !== ticket) out++
    else current = mine!.fresh ?? current
    for (const r of rest) if (r.admitted && r.ticketId === ticket && r.fresh) cookies.push(r.fresh)
    await sleep(30)
  }
  let active = 0
  for (let k = 0; k <= 2; k++) active += await room.activeIn(back + k)
  return { backend, mode, S, during: during.reason, out, grants: grants.join(' '), fresh: grants.length, active }
}

describe('break14h: the grant step failing or late during a re-entry: U stays, one place', () => {
  for (const backend of ['memory', 'sqlite', 'redis'] as Backend[]) {
    it(`${backend}: fail and late, sessions of 3`, async () => {
      const bad: string[] = []
      for (const mode of ['fail', 'late'] as const) for (const S of [3]) {
        const out = await run(backend, mode, S)
        console.log(JSON.stringify(out))
        if (out.out > 0 || out.fresh !== 1 || out.active !== 1) bad.push(JSON.stringify(out))
      }
      expect(bad).toEqual([])
    }, 50_000)
  }
})
