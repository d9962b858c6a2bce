/**
 * breakbatch17 guarantee 3: one ticket asking several times in ONE turn (same cookie, one or two processes), then a
 * retry, is admitted as one user and counted once (HELD): with newUsersPerMinute n, the n−1 newcomers queued behind it in
 * that turn are still admitted, the n-th is not. Every cookie it was given stays a session.
 */
import { afterAll, describe, expect, it } from 'vitest'
import { connect, minuteStart, MINUTE, process, redisProcess, type Client } from './fleet.ts'

const clients: Client[] = []
afterAll(async () => { for (const c of clients) await c.quit().catch(() => {}) })

describe('breakbatch17: a ticket asking twice in one batch is counted once', () => {
  for (const [copies, processes, n] of [[2, 1, 2], [5, 1, 3], [64, 1, 2], [65, 1, 4], [3, 2, 3], [40, 2, 5]] as const) {
    it(`${copies} copies of one cookie over ${processes} process(es), n ${n}`, async () => {
      const prefix = `wrtest-bb17i-${crypto.randomUUID().slice(0, 8)}`
      const roomId = 'bb17-idem'
      const clock = { now: minuteStart() }
      const options = { totalActiveUsers: 1000, newUsersPerMinute: n, sessionDurationMinutes: 30, failMode: 'closed' as const, coordinatorTimeoutMs: 5000, syncIntervalMs: 0 }
      const procs: ReturnType<typeof process>[] = []
      for (let p = 0; p < processes; p++) {
        const client = await connect()
        clients.push(client)
        procs.push(process(redisProcess(client, prefix), clock, roomId, options))
      }
      // Minute 0: n + 1 newcomers, the last one queued: its cookie is the ticket.
      const first = await Promise.all(Array.from({ length: n + 1 }, () => procs[0]!()))
      const queued = first.filter((a) => !a.admitted)
      expect(queued.length).toBe(1)
      const cookie = queued[0]!.fresh!
      clock.now += MINUTE
      // Minute 1, one turn: the ticket `copies` times (spread over processes), then n newcomers.
      const dup = Array.from({ length: copies }, (_, i) => procs[i % processes]!(cookie))
      const newcomers = Array.from({ length: n }, (_, i) => procs[i % processes]!())
      const [d, c] = await Promise.all([Promise.all(dup), Promise.all(newcomers)])
      const retry = await procs[0]!(cookie)
      const summary = { dupReasons: d.map((a) => a.reason.slice(0, 9)), dupTickets: new Set(d.map((a) => a.ticketId)).size, newcomers: c.map((a) => a.admitted ? a.reason : a.reason.slice(0,9) + (a.reason.match(/data-reason="([^"]*)"/)?.[1] ?? "")), retry: retry.reason.slice(0, 9) }
      console.log(JSON.stringify(summary))
      expect(d.every((a) => a.admitted), JSON.stringify(summary)).toBe(true)
      expect(summary.dupTickets).toBe(1)
      // Counted once: in one process, the n − 1 newcomers after it in the turn admitted, the last refused. Over two
      // processes the cold one may hold its newcomers behind the queue (not-eligible): top the minute up from process 0;
      // the minute's distinct admissions are then exactly n (the ticket once + n − 1 others).
      if (processes === 1) expect(c.map((a) => a.admitted), JSON.stringify(summary)).toEqual([...Array(n - 1).fill(true), false])
      // A retry with the OLD queue cookie after the minute filled is the same ticket too (sametick18: it was
      // answered not-eligible by a plan that no longer counts it waiting).
      expect(retry.admitted && retry.ticketId === d[0]!.ticketId, JSON.stringify(summary)).toBe(true)
      // Top the minute up: the newcomers it queued check in again when due — a place the plan keeps for the queue is
      // theirs, not a later newcomer's (sametick18: over two processes one may be queued behind the ticket's slot) —
      // then more newcomers.
      const topUp = []
      clock.now += 26_000 // past every queued refresh (20 s ± 10%), still in the minute
      for (const a of c) if (!a.admitted && a.fresh) topUp.push(await procs[0]!(a.fresh))
      for (let i = 0; i < n + 1; i++) topUp.push(await procs[0]!())
      const distinct = 1 + c.filter((a) => a.admitted).length + topUp.filter((a) => a.admitted).length
      expect(distinct, JSON.stringify({ ...summary, topUp: topUp.map((a) => a.admitted) })).toBe(n)
      // Every cookie handed out in that turn is still a session a minute later.
      clock.now += MINUTE
      for (const a of d) {
        const again = await procs[0]!(a.fresh ?? cookie)
        expect(again.reason, JSON.stringify(summary)).toBe('session')
      }
    }, 60_000)
  }
})
