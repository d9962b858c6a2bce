/**
 * breakbatch17 guarantee 5: an admitted user's request makes no slot call (takeSlot / takeSlots), even in a burst
 * with new users; a single new user of a warm process is asked for at once — its slot call is made at most one
 * event-loop turn (setImmediate) after its request started, besides the turns the pipeline took before #16 (measured
 * on main: BASE_TURNS), and it is admitted.
 */
import { afterAll, describe, expect, it } from 'vitest'
import { connect, countingRedis, minuteStart, process, type Client } from './fleet.ts'

const clients: Client[] = []
afterAll(async () => { for (const c of clients) await c.quit().catch(() => {}) })

async function setup(n = 1000) {
  const client = await connect()
  clients.push(client)
  const { coordinator, calls } = countingRedis(client, `wrtest-bb17p-${crypto.randomUUID().slice(0, 8)}`)
  const clock = { now: minuteStart() }
  const proc = process(coordinator, clock, 'bb17-paths', { totalActiveUsers: 1000, newUsersPerMinute: n, sessionDurationMinutes: 30, failMode: 'closed', coordinatorTimeoutMs: 3000, syncIntervalMs: 0 })
  return { proc, calls, clock }
}
const slotCalls = (calls: { scripts: number }) => calls.scripts

describe('breakbatch17: admitted users make no slot call; a single new user is asked for at once', () => {
  for (const [sessions, newcomers] of [[1, 0], [50, 0], [64, 10], [200, 1]] as [number, number][]) {
    it(`${sessions} admitted users + ${newcomers} new users in one turn: slot calls only for the new`, async () => {
      const { proc, calls } = await setup()
      const admitted = []
      for (let i = 0; i < sessions; i += 50) admitted.push(...(await Promise.all(Array.from({ length: Math.min(50, sessions - i) }, () => proc()))))
      const before = slotCalls(calls)
      const out = await Promise.all([...admitted.map((a) => proc(a.fresh)), ...Array.from({ length: newcomers }, () => proc())])
      expect(out.slice(0, sessions).every((a) => a.reason === 'session')).toBe(true)
      // Script calls: none for the sessions; the newcomers' at most ceil(newcomers / 64) (batched), at least 1 if any.
      const made = slotCalls(calls) - before
      expect(made).toBeLessThanOrEqual(Math.ceil(newcomers / 64))
      if (newcomers > 0) expect(made).toBeGreaterThanOrEqual(1)
    }, 30_000)
  }

  it('a single new user in a warm process: admitted, its slot call within one more turn than main', async () => {
    const { proc, calls } = await setup()
    await proc() // warm
    const turns: number[] = []
    for (let k = 0; k < 20; k++) {
      let ticks = 0
      let running = true
      const tick = () => { ticks++; if (running) setImmediate(tick) }
      setImmediate(tick)
      const made = slotCalls(calls)
      let at = -1
      const watch = setInterval(() => {}, 1000)
      const answer = proc()
      // Polls the call count each turn: the turn at which the call was made.
      const poll = () => { if (at < 0 && slotCalls(calls) > made) at = ticks; if (at < 0 && running) setImmediate(poll) }
      poll()
      const a = await answer
      running = false
      clearInterval(watch)
      expect(a.reason).toBe('slot')
      turns.push(at)
    }
    console.log(JSON.stringify({ turns }))
    const BASE_TURNS = Number(globalThis.process.env.BB17_BASE_TURNS ?? 1)
    expect(Math.max(...turns), JSON.stringify(turns)).toBeLessThanOrEqual(BASE_TURNS + 1)
  }, 30_000)
})
