/**
 * The location stage's pacing and restart rules, without workerd (the conformance suite runs it there).
 */
import { describe, expect, it } from 'vitest'
import { GlobalAggregator } from '../../src/coordination/aggregator.ts'
import type { LocationState, RoomEpoch, RoomState, WorkerReport } from '../../src/coordination/state.ts'
import fc from 'fast-check'
import { MemoryGrantLog, type GrantMark, type MemoryGrantStore } from './grant-log.ts'
import { LocationStage, type Exchange, type ExchangeAnswer } from './location-stage.ts'
import { ReferenceBook } from '../../src/coordination/reference.ts'
import type { FixReferences } from './stage-references.ts'

const pacing = { exchangeIntervalMs: 1000, globalExchangesPerSecond: 2 }
let reportId = 0
const report = (location: string, at: number, deltas: Record<string, number> = {}): WorkerReport => ({
  id: `r${++reportId}`,
  roomId: 'room',
  location,
  at,
  keepMinutes: 10,
  deltas,
})

/** A global aggregator behind an exchange function that records what it was sent; its views carry `epoch`. */
function globalStage(epoch?: RoomEpoch) {
  const aggregator = new GlobalAggregator()
  const sent: (LocationState | null)[] = []
  const exchangeFor = (location: string, now: () => number): Exchange => async (state) => {
    sent.push(state)
    const view = state === null ? aggregator.view(now()) : aggregator.exchange(location, state, now())
    return epoch ? { ...view, epoch } : view
  }
  return { aggregator, sent, exchangeFor }
}

describe('LocationStage', () => {
  it('exchanges at most once per interval, not on every report', async () => {
    const global = globalStage()
    const stage = new LocationStage('SJC')
    let now = 0
    const exchange = global.exchangeFor('SJC', () => now)
    for (now = 0; now < 3000; now += 100) await stage.sync(report('SJC', now, { a1: 1 }), pacing, exchange)
    // The first sync restores (a read) and publishes; then one exchange per second: 0, 1000, 2000.
    expect(global.sent.filter((state) => state !== null)).toHaveLength(3)
    expect(global.sent.filter((state) => state === null)).toHaveLength(1)
  })

  it('exchanges less often as locations are added, to keep the global object at its rate', async () => {
    const global = globalStage()
    for (const location of ['A', 'B', 'C', 'D']) global.aggregator.exchange(location, { counts: {}, updatedAt: 0 }, 0)
    const stage = new LocationStage('SJC')
    await stage.sync(report('SJC', 0), pacing, global.exchangeFor('SJC', () => 0))
    // Five locations at 2 exchanges per second in all: every 2.5 s each.
    expect(stage.intervalMs(pacing)).toBe(2500)
  })

  it('after a restart adopts its earlier state before it publishes, and answers with all of it', async () => {
    const global = globalStage()
    global.aggregator.exchange('SJC', { counts: { a1: 7 }, updatedAt: 0 }, 0)
    const stage = new LocationStage('SJC')
    const view: RoomState = await stage.sync(report('SJC', 10, { a1: 2 }), pacing, global.exchangeFor('SJC', () => 10))
    expect(global.sent[0]).toBeNull()
    expect(global.sent[1]?.counts).toEqual({ a1: 9 })
    expect(view.locations.SJC?.counts).toEqual({ a1: 9 })
  })

  it('keeps answering when the global object is down, and never publishes before it has restored', async () => {
    const stage = new LocationStage('SJC')
    const sent: (LocationState | null)[] = []
    const down: Exchange = async (state) => {
      sent.push(state)
      throw new Error('global object unreachable')
    }
    const view = await stage.sync(report('SJC', 0, { a1: 2 }), pacing, down)
    expect(view.locations.SJC?.counts).toEqual({ a1: 2 })
    await stage.sync(report('SJC', 500, { a1: 1 }), pacing, down) // backed off: no new attempt yet
    expect(sent).toEqual([null])
    await stage.sync(report('SJC', 2000, { a1: 1 }), pacing, down)
    expect(sent).toEqual([null, null])
  })

  it('answers with the epoch of its last exchange, and none while the global object was never reached', async () => {
    const down: Exchange = async () => {
      throw new Error('global object unreachable')
    }
    const stage = new LocationStage('SJC')
    expect((await stage.sync(report('SJC', 0), pacing, down)).epoch).toBeUndefined()
    const epoch = { id: 'first-report', startedAt: 5 }
    const view = await stage.sync(report('SJC', 10_000), pacing, globalStage(epoch).exchangeFor('SJC', () => 10_000))
    expect(view.epoch).toEqual(epoch)
    // Between exchanges the last one's epoch is answered.
    expect((await stage.sync(report('SJC', 10_100), pacing, down)).epoch).toEqual(epoch)
  })

  it('keeps grants counted before its restore: the restored state is added to them, not put in their place', async () => {
    const global = globalStage()
    global.aggregator.exchange('SJC', { counts: { a1: 7, n1: 7 }, updatedAt: 0 }, 0)
    const stage = new LocationStage('SJC')
    stage.aggregator.add({ a1: 1, n1: 1 }) // a grant, before any sync reached this (restarted) object
    const view = await stage.sync(report('SJC', 10), pacing, global.exchangeFor('SJC', () => 10))
    expect(view.locations.SJC?.counts).toEqual({ a1: 8, n1: 8 })
    expect(global.sent.at(-1)?.counts).toEqual({ a1: 8, n1: 8 })
  })

  it('applies a once key once, whatever the number of reports carrying it', async () => {
    const global = globalStage()
    const stage = new LocationStage('SJC')
    const exchange = global.exchangeFor('SJC', () => 0)
    await stage.sync(report('SJC', 0, { a1: 5 }), pacing, exchange)
    const once = { 'x.ticket': { a1: -1, 'x1.ticket': 1 } }
    const views = await Promise.all(Array.from({ length: 20 }, (_, i) => stage.sync({ ...report('SJC', 1 + i), once }, pacing, exchange)))
    // The marker is a delta like any other; the key itself lives in the room's registry, not the counts.
    expect(views.at(-1)?.locations.SJC?.counts).toEqual({ a1: 4, 'x1.ticket': 1 })
  })

  it('counts every grant exactly once in the global copy, whatever restarts, lost answers and outages come between', async () => {
    type Step = { kind: 'grant'; minute: number } | { kind: 'flush'; mode: 'ok' | 'lost' | 'down' } | { kind: 'restart' }
    const step = fc.oneof(
      fc.record({ kind: fc.constant('grant' as const), minute: fc.integer({ min: 1, max: 3 }) }),
      fc.record({ kind: fc.constant('flush' as const), mode: fc.constantFrom('ok' as const, 'lost' as const, 'down' as const) }),
      fc.record({ kind: fc.constant('restart' as const) }),
    )
    const fastPacing = { exchangeIntervalMs: 0, globalExchangesPerSecond: 1_000_000 }
    await fc.assert(
      fc.asyncProperty(fc.array(step, { maxLength: 30 }), async (steps) => {
        // The global object as global-object.ts keeps it: the state, and the mark stored with the state it came with.
        const aggregator = new GlobalAggregator()
        let mark: GrantMark | undefined
        let mode: 'ok' | 'lost' | 'down' = 'ok'
        const exchange: Exchange = async (state, grants, now): Promise<ExchangeAnswer> => {
          if (mode === 'down') throw new Error('down')
          const view = state === null ? aggregator.view(now) : aggregator.exchange('SJC', state, now)
          if (state !== null && view.locations.SJC === state && grants) mark = grants
          if (mode === 'lost') throw new Error('answer lost')
          return mark ? { ...view, grants: mark } : view
        }
        const store: MemoryGrantStore = { rows: [], sequence: 0 }
        let wall = 0
        const wallClock = () => (wall += 60_000) // every flush is past the pacing, whatever the backoff
        let stage = new LocationStage('SJC', new MemoryGrantLog(store), wallClock)
        const granted: Record<string, number> = {}
        const drain = async () => {
          for (let i = 0; i < 5 && (await stage.flush(fastPacing, exchange)) !== undefined; i++);
        }
        for (const s of steps) {
          if (s.kind === 'grant') {
            stage.grant(s.minute, { [`a${s.minute}`]: 1, [`n${s.minute}`]: 1 })
            granted[`n${s.minute}`] = (granted[`n${s.minute}`] ?? 0) + 1
          } else if (s.kind === 'restart') stage = new LocationStage('SJC', new MemoryGrantLog(store), wallClock)
          else {
            mode = s.mode
            await (mode === 'ok' ? drain() : stage.flush(fastPacing, exchange))
            mode = 'ok'
          }
        }
        await drain()
        expect(stage.unsent).toBe(false)
        const held = aggregator.view(0).locations.SJC?.counts ?? {}
        expect(Object.fromEntries(Object.entries(held).filter(([field]) => field.startsWith('n')))).toEqual(granted)
        expect(store.rows).toEqual([])
      }),
      { numRuns: 300 },
    )
  })
  it('counts every acknowledged report exactly once in the global copy, whatever abrupt restarts, retries and outages come between', async () => {
    type Step = { kind: 'report'; minute: number } | { kind: 'retry'; pick: number } | { kind: 'flush'; mode: 'ok' | 'lost' | 'down' } | { kind: 'restart' }
    const step = fc.oneof(
      fc.record({ kind: fc.constant('report' as const), minute: fc.integer({ min: 1, max: 3 }) }),
      fc.record({ kind: fc.constant('retry' as const), pick: fc.nat() }),
      fc.record({ kind: fc.constant('flush' as const), mode: fc.constantFrom('ok' as const, 'lost' as const, 'down' as const) }),
      fc.record({ kind: fc.constant('restart' as const) }),
    )
    const fastPacing = { exchangeIntervalMs: 0, globalExchangesPerSecond: 1_000_000 }
    await fc.assert(
      fc.asyncProperty(fc.array(step, { maxLength: 30 }), async (steps) => {
        const aggregator = new GlobalAggregator()
        let mark: GrantMark | undefined
        let mode: 'ok' | 'lost' | 'down' = 'ok'
        const exchange: Exchange = async (state, grants, now): Promise<ExchangeAnswer> => {
          if (mode === 'down') throw new Error('down')
          const view = state === null ? aggregator.view(now) : aggregator.exchange('SJC', state, now)
          if (state !== null && view.locations.SJC === state && grants) mark = grants
          if (mode === 'lost') throw new Error('answer lost')
          return mark ? { ...view, grants: mark } : view
        }
        const store: MemoryGrantStore = { rows: [], sequence: 0 }
        let wall = 0
        const wallClock = () => (wall += 60_000)
        let stage = new LocationStage('SJC', new MemoryGrantLog(store), wallClock)
        const sent: WorkerReport[] = []
        const reported: Record<string, number> = {}
        let at = 3 * 60_000
        const drain = async () => {
          for (let i = 0; i < 5 && (await stage.flush(fastPacing, exchange)) !== undefined; i++);
        }
        for (const s of steps) {
          if (s.kind === 'report') {
            // Acknowledged once sync answers: from here on the worker forgets it (the exchange it may start is 'ok').
            const r = report('SJC', at++, { [`t${s.minute}`]: 1 })
            await stage.sync(r, fastPacing, exchange)
            sent.push(r)
            reported[`t${s.minute}`] = (reported[`t${s.minute}`] ?? 0) + 1
          } else if (s.kind === 'retry' && sent.length > 0) {
            await stage.sync(sent[s.pick % sent.length]!, fastPacing, exchange) // a lost reply, resent with its id
          } else if (s.kind === 'restart') stage = new LocationStage('SJC', new MemoryGrantLog(store), wallClock)
          else if (s.kind === 'flush') {
            mode = s.mode
            await (mode === 'ok' ? drain() : stage.flush(fastPacing, exchange))
            mode = 'ok'
          }
        }
        await drain()
        const held = aggregator.view(0).locations.SJC?.counts ?? {}
        expect(Object.fromEntries(Object.entries(held).filter(([field]) => field.startsWith('t')))).toEqual(reported)
      }),
      { numRuns: 300 },
    )
  })
})

describe('LocationStage references (split14)', () => {
  const propose = (at: number, minutes: number[], table: Record<string, number>): WorkerReport => {
    const id = `r${++reportId}`
    return { id, roomId: 'room', location: 'SJC', at, keepMinutes: 10, deltas: {}, references: minutes.map((minute) => ({ minute, table, id: `${id}:${minute}` })) }
  }
  /** The global object's `fix` over a reference book, failing while `down`, counting its calls. */
  function globalBook() {
    const book = new ReferenceBook()
    const global = { down: false, calls: 0, fix: (async () => []) as FixReferences }
    global.fix = async (proposals, now) => {
      global.calls++
      await new Promise((resolve) => setTimeout(resolve, 1))
      if (global.down) throw new Error('global object unreachable')
      return book.fix(proposals, Math.floor(now / 60_000))!
    }
    return global
  }

  it('answers what the global object fixed; while it is unreachable leaves the minute out and never answers a table of its own', async () => {
    const global = globalBook()
    const exchange = globalStage().exchangeFor('SJC', () => 0)
    const other = new LocationStage('LHR')
    const fixed = (await other.sync(propose(0, [5], { LHR: 4 }), pacing, exchange, undefined, undefined, global.fix)).references
    expect(fixed).toEqual([expect.objectContaining({ minute: 5, table: { LHR: 4 } })])
    const stage = new LocationStage('SJC')
    global.down = true
    const down = await stage.sync(propose(10, [5, 6], { SJC: 1 }), pacing, exchange, undefined, undefined, global.fix)
    expect(down.references).toBeUndefined()
    global.down = false
    // Asked again with the next sync (nothing kept from the failure): the other stage's table for 5, this one's for 6.
    const up = await stage.sync(propose(20, [5, 6], { SJC: 2 }), pacing, exchange, undefined, undefined, global.fix)
    expect(up.references).toEqual([fixed![0], expect.objectContaining({ minute: 6, table: { SJC: 2 } })])
  })

  it('asks the global object once per minute: concurrent syncs share the call, later ones are answered from the stage', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 2, max: 12 }), fc.integer({ min: 1, max: 3 }), async (workers, minutes) => {
        const global = globalBook()
        const stage = new LocationStage('SJC')
        const exchange = globalStage().exchangeFor('SJC', () => 0)
        const wanted = Array.from({ length: minutes }, (_, i) => 100 + i)
        const answers = await Promise.all(Array.from({ length: workers }, (_, i) => stage.sync(propose(i, wanted, { SJC: i + 1 }), pacing, exchange, undefined, undefined, global.fix)))
        for (const answer of answers) expect(answer.references).toEqual(answers[0]!.references)
        expect(answers[0]!.references).toHaveLength(minutes)
        expect((await stage.sync(propose(workers, wanted, { SJC: 99 }), pacing, exchange, undefined, undefined, global.fix)).references).toEqual(answers[0]!.references)
        expect(global.calls).toBe(1)
      }),
      { numRuns: 20 },
    )
  })
})
