/**
 * breakbatch17 guarantees 1 + 2: bursts of new users in ONE turn, several processes (own Redis connection each)
 * sharing one Redis room, mixed locations. Per minute, fresh admissions ('slot') never exceed newUsersPerMinute,
 * live sessions never exceed totalActiveUsers; within a process and location, an earlier arrival is never refused
 * while a later one is admitted.
 */
import { afterAll, describe, expect, it } from 'vitest'
import { connect, minuteStart, MINUTE, process, redisProcess, type Client } from './fleet.ts'

const clients: Client[] = []
afterAll(async () => { for (const c of clients) await c.quit().catch(() => {}) })

function rng(seed: number) {
  let x = seed * 2654435761 + 1
  return () => ((x = (Math.imul(x ^ (x >>> 15), 2246822507) + 0x6d2b79f5) >>> 0) / 2 ** 32)
}

interface Case { seed: number; processes: number; bursts: number[]; n: number; total: number; locations: number; minutes: number }
const cases: Case[] = [
  { seed: 1, processes: 1, bursts: [1], n: 1, total: 1, locations: 1, minutes: 2 },
  { seed: 2, processes: 1, bursts: [64], n: 10, total: 100, locations: 1, minutes: 2 },
  { seed: 3, processes: 1, bursts: [65], n: 64, total: 64, locations: 1, minutes: 2 },
  { seed: 4, processes: 1, bursts: [500], n: 137, total: 200, locations: 1, minutes: 3 },
  { seed: 5, processes: 3, bursts: [200, 130, 1], n: 50, total: 80, locations: 3, minutes: 3 },
  { seed: 6, processes: 2, bursts: [500, 500], n: 300, total: 400, locations: 5, minutes: 2 },
  { seed: 7, processes: 4, bursts: [63, 64, 65, 129], n: 7, total: 12, locations: 2, minutes: 4 },
]

describe('breakbatch17: bursts in one turn over Redis keep the limits exact and FIFO within a process', () => {
  for (const k of cases) {
    it(`seed ${k.seed}: ${k.processes} processes, bursts ${k.bursts}, n ${k.n}, total ${k.total}, ${k.locations} locations`, async () => {
      const random = rng(k.seed)
      const prefix = `wrtest-bb17-${crypto.randomUUID().slice(0, 8)}`
      const roomId = `bb17-${k.seed}`
      const clock = { now: minuteStart() }
      const options = { totalActiveUsers: k.total, newUsersPerMinute: k.n, sessionDurationMinutes: 30, failMode: 'closed' as const, coordinatorTimeoutMs: 5000, syncIntervalMs: 0 }
      const procs: ReturnType<typeof process>[] = []
      for (let p = 0; p < k.processes; p++) {
        const client = await connect()
        clients.push(client)
        procs.push(process(redisProcess(client, prefix), clock, roomId, options))
      }
      const live = new Set<string>()
      // Queued users come back the next minute with their queue cookie (per process, in their arrival order), before the minute's newcomers.
      let queued: { p: number; location: string; cookie: string }[] = []
      const problems: string[] = []
      for (let m = 0; m < k.minutes; m++) {
        // All bursts issued synchronously, in one turn.
        const issued = procs.flatMap((proc, p) => [
          ...queued.filter((q) => q.p === p).map((q, i) => ({ p, i: -1000 + i, location: q.location, cookie: q.cookie, answer: proc(q.cookie, q.location) })),
          ...Array.from({ length: k.bursts[p]! }, (_, i) => {
            const location = `L${Math.floor(random() * k.locations)}`
            return { p, i, location, cookie: undefined as string | undefined, answer: proc(undefined, location) }
          }),
        ])
        const answers = await Promise.all(issued.map(async (x) => ({ ...x, answer: await x.answer })))
        queued = answers.filter((a) => !a.answer.admitted).map((a) => ({ p: a.p, location: a.location, cookie: a.answer.fresh ?? a.cookie! }))
        const fresh = answers.filter((a) => a.answer.reason === 'slot')
        for (const a of fresh) live.add(a.answer.ticketId)
        const reasons: Record<string, number> = {}
        for (const a of answers) reasons[a.answer.reason] = (reasons[a.answer.reason] ?? 0) + 1
        if (answers.some((a) => a.answer.status >= 500)) problems.push(`minute ${m}: a 5xx`)
        if (fresh.length > k.n) problems.push(`minute ${m}: ${fresh.length} fresh admissions > newUsersPerMinute ${k.n} ${JSON.stringify(reasons)}`)
        if (live.size > k.total) problems.push(`minute ${m}: ${live.size} live sessions > totalActiveUsers ${k.total}`)
        // FIFO per process and location.
        for (let p = 0; p < k.processes; p++) {
          for (let l = 0; l < k.locations; l++) {
            const seq = answers.filter((a) => a.p === p && a.location === `L${l}`)
            const firstRefused = seq.findIndex((a) => !a.answer.admitted)
            const laterAdmitted = firstRefused < 0 ? -1 : seq.findIndex((a, j) => j > firstRefused && a.answer.admitted)
            if (laterAdmitted >= 0) problems.push(`minute ${m} process ${p} L${l}: arrival #${seq[firstRefused]!.i} refused (${seq[firstRefused]!.answer.reason}) but later #${seq[laterAdmitted]!.i} admitted`)
          }
        }
        console.log(JSON.stringify({ seed: k.seed, minute: m, fresh: fresh.length, live: live.size, reasons }))
        clock.now += MINUTE
      }
      expect(problems, problems.slice(0, 5).join('\n')).toEqual([])
    }, 60_000)
  }
})
