/**
 * @module
 * The one conformance suite every coordinator adapter passes, in its own runtime. It takes the test
 * functions as arguments so the same file runs under vitest, `deno test` and `bun test`: no `node:`
 * imports, no `Buffer`, only Web APIs and the few matchers all three share.
 */
import { ANYWHERE, takeSlot, type Coordinator } from '../../src/coordination/coordinator.ts'
import type { RoomState, WorkerReport } from '../../src/coordination/state.ts'
import { historyConformance } from './history-suite.ts'
import { movesConformance } from './moves-suite.ts'
import { seeded } from './seeded.ts'

type Fn = () => void | Promise<void>

/** The matchers this suite uses; vitest's, bun's and jest-compatible `expect`s all provide them. */
export interface Expectation {
  toBe(expected: unknown): void
  toEqual(expected: unknown): void
  toBeGreaterThanOrEqual(expected: number): void
  toBeLessThanOrEqual(expected: number): void
  toBeUndefined(): void
}

export interface TestApi {
  describe(name: string, body: () => void): void
  it(name: string, body: Fn, timeoutMs?: number): void
  beforeAll(body: Fn): void
  afterAll(body: Fn): void
  expect(value: unknown): Expectation
}

export interface ConformanceHarness {
  /** Adapter name shown in test titles. */
  name: string
  /** A coordinator over the backend (each test uses its own room ids, so one backend can serve all). */
  create(): Coordinator | Promise<Coordinator>
  /** A new coordinator over the same backend, as after a restart of the process or of the backend's objects. */
  reopen(previous: Coordinator): Coordinator | Promise<Coordinator>
  /** How many times to sync before other locations' state must be visible (hierarchies with exchange lag). */
  syncsToPropagate?: number
  /** Clock step between those syncs, in ms. */
  propagationStepMs?: number
  close?(): void | Promise<void>
  /**
   * Deletes everything the backend stores for `roomId`, as a Redis restarted without persistence or a SQLite
   * file replaced would. Adapters whose state cannot be lost alone (in-process memory) leave it out.
   */
  wipe?(coordinator: Coordinator, roomId: string): void | Promise<void>
  /**
   * The adapter answers a generation with every sync (its stored state can be put back from an older copy:
   * SQLite, Redis), and must compare a report's `seen` with it in the sync's atomic step.
   */
  generations?: boolean
  /**
   * A location's grant step learns a loss marked by another location only at its next exchange with the room
   * (Durable Objects: a colo's object holds its counters). Left out: every grant reads the room's mark at once.
   */
  marksReachLocationsOnExchange?: boolean
  /**
   * A location's grant step knows the room's epoch only from its last exchange with the room (Durable Objects: the
   * global object holds it, and a colo object is not made to ask it per grant), so a grant right after a wipe — the
   * colo object restarted, no exchange yet — is not compared. Left out: the grant reads the stored epoch itself.
   */
  epochAtGrantFromExchange?: boolean
  /**
   * The known limit of adapters whose counters are separate objects (Durable Objects: each location's counters and
   * the Anywhere counter): a token's first answer is kept per counter, not per room and minute, so one ticket's cookie
   * asked at two scopes of a minute at once takes a slot in each (README "Known limits"; never above a limit). Left
   * out: one slot a minute per token, whichever scopes it asks (#14).
   */
  tokensPerCounter?: boolean
}

/** A fixed minute for tests: 2026-11-30 12:00 UTC. */
const BASE_MINUTE = 29_405_520
const BASE_MS = BASE_MINUTE * 60_000

const room = (label: string): string => `${label}-${crypto.randomUUID().slice(0, 8)}`

function report(
  roomId: string,
  location: string,
  at: number,
  deltas: Record<string, number>,
  id: string = crypto.randomUUID(),
  once?: WorkerReport['once'],
): WorkerReport {
  return once ? { id, roomId, location, at, keepMinutes: 10, deltas, once } : { id, roomId, location, at, keepMinutes: 10, deltas }
}

export function coordinatorConformance(t: TestApi, harness: ConformanceHarness): void {
  const { describe, it, expect, beforeAll, afterAll } = t
  const steps = harness.syncsToPropagate ?? 1
  const stepMs = harness.propagationStepMs ?? 1000

  /** Syncs every location (empty reports) until the view satisfies `done`, or the allowed syncs run out. */
  async function propagate(coordinator: Coordinator, roomId: string, locations: string[], from: number): Promise<RoomState> {
    let view: RoomState = { locations: {}, at: 0 }
    for (let i = 0; i <= steps; i++) {
      for (const location of locations) view = await coordinator.sync(report(roomId, location, from + i * stepMs, {}))
    }
    return view
  }

  describe(`coordinator conformance: ${harness.name}`, () => {
    let coordinator: Coordinator
    beforeAll(async () => {
      coordinator = await harness.create()
    })
    afterAll(async () => {
      await harness.close?.()
    })

    historyConformance(t, () => coordinator)
    movesConformance(t, { coordinator: () => coordinator, reopen: (previous) => harness.reopen(previous), propagate })

    it('gives unique sequence numbers and exactly `limit` slots under high concurrency', async () => {
      const roomId = room('seq')
      const calls = Array.from({ length: 500 }, (_, i) =>
        coordinator.increment({ roomId, scope: 'SJC', minute: BASE_MINUTE, limit: 200, token: `t${i}` }),
      )
      const results = await Promise.all(calls)
      const taken = results.filter((r) => r.taken)
      expect(taken.length).toBe(200)
      const seqs = new Set(taken.map((r) => r.seq))
      expect(seqs.size).toBe(200)
      expect(Math.min(...seqs)).toBe(0)
      expect(Math.max(...seqs)).toBe(199)
      for (const r of results.filter((r) => !r.taken)) expect(r.seq).toBeGreaterThanOrEqual(200)
    }, 60_000)

    it('keeps one counter per scope and minute', async () => {
      const roomId = room('keys')
      const take = (scope: string, minute: number, token: string) =>
        coordinator.increment({ roomId, scope, minute, limit: 1, token })
      expect((await take('SJC', BASE_MINUTE, 'a')).taken).toBe(true)
      expect((await take('SJC', BASE_MINUTE, 'b')).taken).toBe(false)
      // Another minute, another location and the Anywhere pool each have their own count.
      expect((await take('SJC', BASE_MINUTE + 1, 'c')).taken).toBe(true)
      expect((await take('LHR', BASE_MINUTE, 'd')).taken).toBe(true)
      expect((await take(ANYWHERE, BASE_MINUTE, 'e')).taken).toBe(true)
      expect((await take(ANYWHERE, BASE_MINUTE, 'f')).taken).toBe(false)
    })

    it('does not count a retried token twice, and a larger limit later in the minute opens more slots', async () => {
      const roomId = room('retry')
      const first = await coordinator.increment({ roomId, scope: 'SJC', minute: BASE_MINUTE, limit: 2, token: 'same' })
      const again = await coordinator.increment({ roomId, scope: 'SJC', minute: BASE_MINUTE, limit: 2, token: 'same' })
      expect(first.taken).toBe(true)
      expect(again.taken).toBe(true)
      expect(again.repeat).toBe(true)
      expect(again.seq).toBe(first.seq)
      expect((await coordinator.increment({ roomId, scope: 'SJC', minute: BASE_MINUTE, limit: 2, token: 'other' })).taken).toBe(true)
      expect((await coordinator.increment({ roomId, scope: 'SJC', minute: BASE_MINUTE, limit: 2, token: 'third' })).taken).toBe(false)
      expect((await coordinator.increment({ roomId, scope: 'SJC', minute: BASE_MINUTE, limit: 3, token: 'third' })).taken).toBe(true)
    })

    it("lowers a minute's limit by what the minute before gave beyond the caller's report (previousReported)", async () => {
      const roomId = room('carry')
      const take = (minute: number, limit: number, token: string, previousReported?: number) =>
        coordinator.increment({ roomId, scope: 'SJC', minute, limit, token, previousReported })
      // Minute 0 gives 4 slots; the caller of minute 1 has seen only 1 of them reported.
      for (let i = 0; i < 4; i++) expect((await take(BASE_MINUTE, 10, `m0-${i}`)).taken).toBe(true)
      // Limit 5, minus the 3 unreported: 2 slots.
      const minuteOne = []
      for (let i = 0; i < 4; i++) minuteOne.push((await take(BASE_MINUTE + 1, 5, `m1-${i}`, 1)).taken)
      expect(minuteOne).toEqual([true, true, false, false])
      // Once all 4 are reported, the full limit applies again; without previousReported, no correction.
      const reported = []
      for (let i = 0; i < 4; i++) reported.push((await take(BASE_MINUTE + 1, 5, `m1-late-${i}`, 4)).taken)
      expect(reported).toEqual([true, true, true, false])
      expect((await take(BASE_MINUTE + 2, 1, 'm2-a')).taken).toBe(true)
      // A minute with nothing before it is not lowered; reporting more than was taken lowers nothing.
      expect((await take(BASE_MINUTE + 50, 1, 'm50', 0)).taken).toBe(true)
      expect((await take(BASE_MINUTE + 3, 1, 'm3', 99)).taken).toBe(true)
    })

    it('refuses every fresh grant while the room recovers: a loss mark read by the grant step itself, room-wide', async () => {
      const roomId = room('recovering')
      const slot = (location: string, minute: number, token: string, recoveryMinutes?: number) =>
        takeSlot(coordinator, { roomId, location, minute, localLimit: 5, anywhereLimit: 5, token, ...(recoveryMinutes === undefined ? {} : { recoveryMinutes }) })
      const bare = (location: string, scope: string, minute: number, token: string, recoveryMinutes?: number) =>
        coordinator.increment({ roomId, scope, location, minute, limit: 5, token, ...(recoveryMinutes === undefined ? {} : { recoveryMinutes }) })
      expect((await slot('SJC', BASE_MINUTE, 'before', 6)).admitted).toBe(true)
      // A worker of SJC reports the loss, in minute BASE + 1; LHR's workers have not synced since.
      await coordinator.sync(report(roomId, 'SJC', BASE_MS + 61_000, { [`R${BASE_MINUTE + 1}`]: 1 }))
      if (harness.marksReachLocationsOnExchange) await propagate(coordinator, roomId, ['SJC', 'LHR'], BASE_MS + 62_000)
      // A token that holds its slot gets its first answer; every fresh grant is refused, in every location.
      expect((await slot('SJC', BASE_MINUTE, 'before', 6)).admitted).toBe(true)
      const refusedIn = async (location: string, minute: number) => {
        const refused = await slot(location, minute, `new-${location}-${minute}`, 6)
        expect({ admitted: refused.admitted, recovering: refused.recovering }).toEqual({ admitted: false, recovering: true })
      }
      for (const location of ['SJC', 'LHR']) {
        await refusedIn(location, BASE_MINUTE + 1)
        for (const scope of [location, ANYWHERE]) expect((await bare(location, scope, BASE_MINUTE + 2, `bare-${location}-${scope}`, 6)).recovering).toBe(true)
      }
      // failMode 'open' (window 0) grants; the window's last minute refuses; the minutes after it grant.
      expect((await slot('LHR', BASE_MINUTE + 2, 'open', 0)).admitted).toBe(true)
      for (const location of ['SJC', 'LHR']) await refusedIn(location, BASE_MINUTE + 7)
      expect((await slot('LHR', BASE_MINUTE + 8, 'after', 6)).admitted).toBe(true)
      // A caller that names no window (an older version) gets the longest: it fails safe.
      expect((await slot('LHR', BASE_MINUTE + 9, 'old-caller')).recovering).toBe(true)
      expect((await bare('LHR', 'LHR', BASE_MINUTE + 9, 'old-bare')).recovering).toBe(true)
      // A later mark moves the window on; an earlier one does not move it back.
      await coordinator.sync(report(roomId, 'LHR', BASE_MS + 9 * 60_000, { [`R${BASE_MINUTE + 9}`]: 1, [`R${BASE_MINUTE}`]: 1 }))
      if (harness.marksReachLocationsOnExchange) await propagate(coordinator, roomId, ['SJC', 'LHR'], BASE_MS + 9 * 60_000 + 1000)
      expect((await slot('SJC', BASE_MINUTE + 15, 'later-mark', 6)).recovering).toBe(true)
      expect((await slot('SJC', BASE_MINUTE + 16, 'past-later-mark', 6)).admitted).toBe(true)
    })

    it('generated orders of loss marks and grants from several locations: a grant is refused exactly while a mark so far covers its minute', async () => {
      for (const seed of [14, 1404, 90210]) {
        const random = seeded(seed)
        const pick = <T,>(items: T[]): T => items[Math.floor(random() * items.length)]!
        const roomId = room(`recovering-${seed}`)
        const locations = ['SJC', 'LHR', 'NRT']
        let minute = BASE_MINUTE
        let lost: number | undefined
        for (let step = 0; step < 24; step++) {
          minute += pick([0, 0, 1, 2])
          if (random() < 0.25) {
            // A worker of some location marks a loss in this minute or the one before.
            const marked = minute - pick([0, 1])
            await coordinator.sync(report(roomId, pick(locations), minute * 60_000 + step, { [`R${marked}`]: 1 }))
            lost = Math.max(lost ?? marked, marked)
            if (harness.marksReachLocationsOnExchange) await propagate(coordinator, roomId, locations, minute * 60_000 + step + 1)
            continue
          }
          const window = pick([0, 1, 3, 6])
          const asked = await takeSlot(coordinator, { roomId, location: pick(locations), minute, localLimit: 1000, anywhereLimit: 1000, token: `g${step}`, recoveryMinutes: window })
          const refused = lost !== undefined && window > 0 && minute <= lost + window
          expect({ step, admitted: asked.admitted, recovering: asked.recovering === true }).toEqual({ step, admitted: !refused, recovering: refused })
        }
      }
    }, 120_000)

    it('takes one slot a minute per token, whichever scopes it asks: the second scope answers a repeat (#14), generated', async () => {
      const locations = ['SJC', 'LHR', 'NRT']
      for (const seed of [14, 1404, 90210]) {
        const random = seeded(seed)
        const pick = <T,>(items: T[]): T => items[Math.floor(random() * items.length)]!
        const roomId = room(`one-slot-${seed}`)
        let fresh = 0
        for (let ticket = 0; ticket < 8; ticket++) {
          const token = `t${seed}-${ticket}`
          // Two or three asks, the first two at different scopes: a location's counter, Anywhere, fused or bare.
          const asks = Array.from({ length: 2 + Math.floor(random() * 2) }, () => ({ location: pick(locations), anywhere: random() < 0.5, bare: random() < 0.3 }))
          const scopeOf = (ask: (typeof asks)[number]): string => (ask.anywhere ? ANYWHERE : ask.location)
          if (scopeOf(asks[1]!) === scopeOf(asks[0]!)) asks[1]!.anywhere = !asks[0]!.anywhere
          const ask = async ({ location, anywhere, bare }: (typeof asks)[number]) => {
            if (bare) {
              const r = await coordinator.increment({ roomId, scope: anywhere ? ANYWHERE : location, location, minute: BASE_MINUTE, limit: 50, token })
              return { granted: r.taken, repeat: r.repeat === true }
            }
            const r = await takeSlot(coordinator, { roomId, location, minute: BASE_MINUTE, localLimit: anywhere ? 0 : 50, anywhereLimit: 50, token })
            return { granted: r.admitted, repeat: r.repeat === true, via: r.via }
          }
          const together = random() < 0.5
          const answers = together ? await Promise.all(asks.map(ask)) : []
          if (!together) for (const one of asks) answers.push(await ask(one))
          const granted = answers.filter((a) => a.granted && !a.repeat).length
          const scopes = new Set(asks.map(scopeOf)).size
          const seen = { seed, ticket, together, asks: asks.map(scopeOf).join(' '), answers: JSON.stringify(answers) }
          expect({ ...seen, allGranted: answers.every((a) => a.granted) }).toEqual({ ...seen, allGranted: true })
          // The declared limit: one slot per counter asked, never two from one counter.
          expect({ ...seen, granted }).toEqual({ ...seen, granted: harness.tokensPerCounter ? scopes : 1 })
          if (!together && !harness.tokensPerCounter) {
            // In turn: every later ask is a repeat, and a fused one names the counter that gave the first answer.
            const first = asks[0]!.anywhere ? 'anywhere' : 'location'
            const wrong = answers.slice(1).filter((a, i) => !a.repeat || (!asks[i + 1]!.bare && a.via !== first))
            expect({ ...seen, wrong: wrong.length }).toEqual({ ...seen, wrong: 0 })
          }
          fresh += granted
        }
        // Nothing counted again: the minute's admissions are the fresh grants alone.
        const view = await propagate(coordinator, roomId, locations, BASE_MS + 1)
        const admitted = locations.reduce((sum, l) => sum + (view.locations[l]?.counts[`a${BASE_MINUTE}`] ?? 0), 0)
        expect({ seed, admitted }).toEqual({ seed, admitted: fresh })
      }
    }, 120_000)

    it('merges reports of several workers per location and answers with every location', async () => {
      const roomId = room('merge')
      await coordinator.sync(report(roomId, 'NBO', BASE_MS, { [`a${BASE_MINUTE}`]: 100, [`w${BASE_MINUTE}.${BASE_MINUTE - 2}`]: 2 }))
      await coordinator.sync(report(roomId, 'NBO', BASE_MS + 10, { [`a${BASE_MINUTE}`]: 51, [`w${BASE_MINUTE}.${BASE_MINUTE - 1}`]: 20 }))
      await coordinator.sync(report(roomId, 'DUB', BASE_MS + 20, { [`a${BASE_MINUTE}`]: 50, [`w${BASE_MINUTE}.${BASE_MINUTE - 1}`]: 30 }))
      const view = await propagate(coordinator, roomId, ['NBO', 'DUB'], BASE_MS + 30)
      expect(view.locations.NBO?.counts).toEqual({ [`a${BASE_MINUTE}`]: 151, [`w${BASE_MINUTE}.${BASE_MINUTE - 2}`]: 2, [`w${BASE_MINUTE}.${BASE_MINUTE - 1}`]: 20 })
      expect(view.locations.DUB?.counts).toEqual({ [`a${BASE_MINUTE}`]: 50, [`w${BASE_MINUTE}.${BASE_MINUTE - 1}`]: 30 })
    })

    it('subtracts as well as adds (a renewal moves a count between minutes)', async () => {
      const roomId = room('move')
      await coordinator.sync(report(roomId, 'SJC', BASE_MS, { [`a${BASE_MINUTE}`]: 3 }))
      const view = await coordinator.sync(report(roomId, 'SJC', BASE_MS + 60_000, { [`a${BASE_MINUTE}`]: -1, [`a${BASE_MINUTE + 1}`]: 1 }))
      expect(view.locations.SJC?.counts).toEqual({ [`a${BASE_MINUTE}`]: 2, [`a${BASE_MINUTE + 1}`]: 1 })
    })

    it('applies a retried report once', async () => {
      const roomId = room('idem')
      const same = report(roomId, 'SJC', BASE_MS, { [`n${BASE_MINUTE}`]: 5 }, 'report-1')
      await coordinator.sync(same)
      await coordinator.sync(same)
      const view = await coordinator.sync(report(roomId, 'SJC', BASE_MS + 1, {}))
      expect(view.locations.SJC?.counts[`n${BASE_MINUTE}`]).toBe(5)
    })

    it('drops fields older than the room keeps', async () => {
      const roomId = room('prune')
      await coordinator.sync(report(roomId, 'SJC', BASE_MS, { [`a${BASE_MINUTE}`]: 4, [`t${BASE_MINUTE}`]: 4 }))
      const later = BASE_MS + 12 * 60_000 // keepMinutes is 10
      const view = await coordinator.sync(report(roomId, 'SJC', later, { [`a${BASE_MINUTE + 12}`]: 1 }))
      expect(view.locations.SJC?.counts).toEqual({ [`a${BASE_MINUTE + 12}`]: 1 })
    })

    it('keeps rooms apart', async () => {
      const one = room('iso')
      const two = room('iso')
      await coordinator.increment({ roomId: one, scope: 'SJC', minute: BASE_MINUTE, limit: 1, token: 'x' })
      expect((await coordinator.increment({ roomId: two, scope: 'SJC', minute: BASE_MINUTE, limit: 1, token: 'y' })).taken).toBe(true)
      await coordinator.sync(report(one, 'SJC', BASE_MS, { [`a${BASE_MINUTE}`]: 7 }))
      const view = await coordinator.sync(report(two, 'SJC', BASE_MS, {}))
      expect(view.locations.SJC?.counts[`a${BASE_MINUTE}`]).toBeUndefined()
    })

    it('survives a restart: counters never reopen admitted slots and state comes back', async () => {
      const roomId = room('restart')
      for (let i = 0; i < 3; i++) await coordinator.increment({ roomId, scope: 'SJC', minute: BASE_MINUTE, limit: 5, token: `before${i}` })
      await coordinator.sync(report(roomId, 'SJC', BASE_MS, { [`a${BASE_MINUTE}`]: 3, [`n${BASE_MINUTE}`]: 3 }))
      await coordinator.sync(report(roomId, 'LHR', BASE_MS, { [`a${BASE_MINUTE}`]: 2 }))
      await propagate(coordinator, roomId, ['SJC', 'LHR'], BASE_MS + 1)
      coordinator = await harness.reopen(coordinator)
      let taken = 0
      for (let i = 0; i < 5; i++) {
        if ((await coordinator.increment({ roomId, scope: 'SJC', minute: BASE_MINUTE, limit: 5, token: `after${i}` })).taken) taken++
      }
      expect(taken).toBe(2)
      await coordinator.sync(report(roomId, 'SJC', BASE_MS + 30_000, { [`a${BASE_MINUTE}`]: 2 }))
      const view = await propagate(coordinator, roomId, ['SJC', 'LHR'], BASE_MS + 30_001)
      expect(view.locations.SJC?.counts[`a${BASE_MINUTE}`]).toBe(5)
      expect(view.locations.LHR?.counts[`a${BASE_MINUTE}`]).toBe(2)
    })

    describe('the contract that makes a wrong count impossible', () => {
      const a = `a${BASE_MINUTE}`
      const n = `n${BASE_MINUTE}`
      const y = `y${BASE_MINUTE}`

      it('counts a fresh grant in the asking location in the same step as the slot; a repeat adds nothing', async () => {
        const roomId = room('admit')
        const take = (scope: string, location: string, token: string) =>
          coordinator.increment({ roomId, location, scope, minute: BASE_MINUTE, limit: 2, token })
        expect((await take('SJC', 'SJC', 'one')).taken).toBe(true)
        expect((await take('SJC', 'SJC', 'one')).repeat).toBe(true)
        expect((await take('SJC', 'SJC', 'two')).taken).toBe(true)
        expect((await take('SJC', 'SJC', 'three')).taken).toBe(false)
        expect((await take(ANYWHERE, 'LHR', 'four')).taken).toBe(true)
        const slot = await takeSlot(coordinator, { roomId, location: 'DUB', minute: BASE_MINUTE, localLimit: 1, anywhereLimit: 0, token: 'five' })
        expect(slot.admitted).toBe(true)
        // Nobody reported anything: the counts come from the grants alone.
        const view = await propagate(coordinator, roomId, ['SJC', 'LHR', 'DUB'], BASE_MS + 1)
        expect(view.locations.SJC?.counts).toEqual({ [a]: 2, [n]: 2 })
        expect(view.locations.LHR?.counts).toEqual({ [a]: 1, [n]: 1, [y]: 1 })
        expect(view.locations.DUB?.counts).toEqual({ [a]: 1, [n]: 1 })
      })

      it('applies a once key once, however many workers send it at the same time', async () => {
        const roomId = room('once')
        const key = 'x.ticket-1'
        const marker = `x${BASE_MINUTE}.ticket-1`
        await coordinator.sync(report(roomId, 'SJC', BASE_MS, { [a]: 5 }))
        const second = await harness.reopen(coordinator) // another process on the same backend
        const sends = Array.from({ length: 20 }, (_, i) =>
          (i % 2 ? second : coordinator).sync(report(roomId, 'SJC', BASE_MS + 1 + i, {}, undefined, { [key]: { [a]: -1, [marker]: 1 } })),
        )
        await Promise.all(sends)
        await second.sync(report(roomId, 'SJC', BASE_MS + 40, {}, undefined, { [key]: { [a]: -1, [marker]: 1 } }))
        const view = await propagate(coordinator, roomId, ['SJC'], BASE_MS + 50)
        expect(view.locations.SJC?.counts[a]).toBe(4)
        expect(view.locations.SJC?.counts[marker]).toBe(1)
        // The key is the registry's, not a count field of the location.
        expect(view.locations.SJC?.counts[key]).toBeUndefined()
        // Another key is its own.
        const after = await coordinator.sync(report(roomId, 'SJC', BASE_MS + 60, {}, undefined, { ['x.ticket-2']: { [a]: -1 } }))
        expect(after.locations.SJC?.counts[a]).toBe(3)
      }, 60_000)

      it('claims a once key once in the whole room: generated keys sent from many locations and processes at once', async () => {
        for (const seed of [1, 2, 3, 4]) {
          const random = seeded(seed)
          const roomId = room(`once-room-${seed}`)
          const locations = ['SJC', 'LHR', 'DUB', 'NRT'].slice(0, 2 + Math.floor(random() * 3))
          const coordinators = [coordinator, await harness.reopen(coordinator), await harness.reopen(coordinator)]
          for (const location of locations) await coordinator.sync(report(roomId, location, BASE_MS, { [a]: 50 }))
          const keys = Array.from({ length: 3 + Math.floor(random() * 6) }, (_, i) => `x.t${seed}-${i}`)
          const sends: Promise<RoomState>[] = []
          let at = BASE_MS + 10
          for (const key of keys) {
            const copies = 2 + Math.floor(random() * 7)
            for (let c = 0; c < copies; c++) {
              const location = locations[Math.floor(random() * locations.length)]!
              const by = coordinators[Math.floor(random() * coordinators.length)]!
              // The same ticket revoked through cookies counted in different minutes: the key is the ticket's alone.
              const counted = BASE_MINUTE - Math.floor(random() * 3)
              const once = { [key]: { [`a${counted}`]: -1, [`x${BASE_MINUTE}.${key.slice(2)}`]: 1 } }
              sends.push(by.sync(report(roomId, location, at++, random() < 0.5 ? { [`t${BASE_MINUTE}`]: 1 } : {}, undefined, once)))
            }
          }
          await Promise.all(sends)
          const view = await propagate(coordinator, roomId, locations, at + 100)
          let active = 0
          let markers = 0
          for (const name in view.locations) {
            const counts = view.locations[name]!.counts
            for (const field in counts) {
              if (field.startsWith('a')) active += counts[field]!
              if (field.startsWith('x')) markers += counts[field]!
            }
          }
          expect(markers).toBe(keys.length)
          expect(active).toBe(50 * locations.length - keys.length)
        }
      }, 120_000)

      it('keeps a once claim for the retention whatever minute its deltas name: a second revocation minutes later adds nothing', async () => {
        const roomId = room('once-later')
        const key = 'x.long-session'
        await coordinator.sync(report(roomId, 'SJC', BASE_MS, { [a]: 2 }, undefined, { [key]: { [a]: -1 } }))
        // Eight minutes on (the report keeps 10): the session was renewed into that minute and revoked again elsewhere.
        const later = BASE_MS + 8 * 60_000
        const laterActive = `a${BASE_MINUTE + 8}`
        await coordinator.sync(report(roomId, 'LHR', later, { [laterActive]: 1 }))
        await coordinator.sync(report(roomId, 'LHR', later + 1, {}, undefined, { [key]: { [laterActive]: -1 } }))
        const view = await propagate(coordinator, roomId, ['SJC', 'LHR'], later + 100)
        expect(view.locations.LHR?.counts[laterActive]).toBe(1)
        expect(view.locations.SJC?.counts[a]).toBe(1)
      }, 60_000)

      it('answers the room epoch, the same on every sync and after a restart', async () => {
        const roomId = room('epoch')
        const first = await coordinator.sync(report(roomId, 'SJC', BASE_MS, { [a]: 1 }))
        expect(typeof first.epoch?.id).toBe('string')
        expect(typeof first.epoch?.startedAt).toBe('number')
        const again = await coordinator.sync(report(roomId, 'LHR', BASE_MS + 1000, {}))
        expect(again.epoch?.id).toBe(first.epoch?.id)
        coordinator = await harness.reopen(coordinator)
        const reopened = await coordinator.sync(report(roomId, 'SJC', BASE_MS + 2000, {}))
        expect(reopened.epoch?.id).toBe(first.epoch?.id)
      })

      if (harness.generations) {
        it('advances the generation with every sync that changes the state; a report that saw a later one marks the room recovering in that sync, once', async () => {
          const roomId = room('generation')
          const lost = `R${BASE_MINUTE + 1}`
          const first = await coordinator.sync(report(roomId, 'SJC', BASE_MS, { [a]: 1 }))
          const g = first.generation!
          expect(typeof g).toBe('number')
          // Reading (an empty report, a retry of an applied one) leaves it: a read never hides an older copy.
          const retried = report(roomId, 'LHR', BASE_MS + 1000, { [a]: 1 })
          const second = await coordinator.sync(retried)
          expect(second.generation).toBe(g + 1)
          expect((await coordinator.sync(retried)).generation).toBe(g + 1)
          expect((await coordinator.sync(report(roomId, 'LHR', BASE_MS + 1500, {}))).generation).toBe(g + 1)
          // A sighting of this generation or below is no restore.
          const seenNow = { ...report(roomId, 'SJC', BASE_MS + 60_000, {}), seen: { epoch: first.epoch!.id, generation: second.generation! } }
          expect((await coordinator.sync(seenNow)).locations.SJC?.counts[lost]).toBeUndefined()
          // A worker saw generation g + 1000 of this epoch: the state it finds is an older copy put back.
          const restored = await coordinator.sync({ ...report(roomId, 'LHR', BASE_MS + 61_000, {}), seen: { epoch: first.epoch!.id, generation: g + 1000 } })
          expect(restored.locations.LHR?.counts[lost]).toBe(1)
          expect(restored.generation).toBe(g + 1001)
          // Past the sighting now: another worker's lower sighting marks nothing more.
          const later = await coordinator.sync({ ...report(roomId, 'SJC', BASE_MS + 62_000, {}), seen: { epoch: first.epoch!.id, generation: g + 999 } })
          expect(later.locations.LHR?.counts[lost]).toBe(1)
          expect(later.locations.SJC?.counts[lost]).toBeUndefined()
        })
      }

      if (harness.generations) {
        it('a report that saw another epoch marks the room recovering in the sync that answers this one: no worker grants from the new state first', async () => {
          const roomId = room('other-epoch')
          const first = await coordinator.sync(report(roomId, 'SJC', BASE_MS, { [a]: 1 }))
          const g = first.generation!
          // A worker that knew the state before a loss (an epoch this backend no longer holds) reports.
          const sighted = await coordinator.sync({ ...report(roomId, 'LHR', BASE_MS + 1000, {}), seen: { epoch: 'lost-epoch', generation: 1e9 } })
          expect(sighted.locations.LHR?.counts[`R${BASE_MINUTE}`]).toBe(1)
          expect(sighted.generation).toBe(g + 1)
          // Another worker, which has not synced since, asks for a slot: refused by the grant step.
          const asked = await takeSlot(coordinator, { roomId, location: 'SJC', minute: BASE_MINUTE, localLimit: 5, anywhereLimit: 5, token: 'unaware', recoveryMinutes: 6 })
          expect({ admitted: asked.admitted, recovering: asked.recovering }).toEqual({ admitted: false, recovering: true })
        })
      }

      it("refuses a grant whose worker knew another epoch than the stored one, and marks the room in that step (failMode 'open': marks, grants)", async () => {
        const roomId = room('foreign-epoch')
        const first = await coordinator.sync(report(roomId, 'SJC', BASE_MS, { [a]: 1 }))
        const known = { epoch: first.epoch!.id, ...(first.generation === undefined ? {} : { generation: first.generation }) }
        const ask = (token: string, seen: { epoch?: string; generation?: number }, recoveryMinutes = 6) =>
          takeSlot(coordinator, { roomId, location: 'SJC', minute: BASE_MINUTE, localLimit: 5, anywhereLimit: 5, token, recoveryMinutes, ...seen })
        // The state the worker knew: granted as ever.
        expect((await ask('knows', known)).admitted).toBe(true)
        // A worker that knew a state this store no longer holds (lost and created anew since its last sync).
        const foreign = await ask('foreign', { epoch: 'lost-epoch', generation: 7 })
        expect({ admitted: foreign.admitted, recovering: foreign.recovering }).toEqual({ admitted: false, recovering: true })
        // Marked in the backend: a grant of a worker that sends no view (or the right one) is refused too.
        expect((await ask('unaware', {})).recovering).toBe(true)
        expect((await ask('knows-too', known)).recovering).toBe(true)
        // (A report with deltas: one without may be answered from a cache of the location's last answer.)
        const view = await coordinator.sync(report(roomId, 'SJC', BASE_MS + 1000, { [a]: 1 }))
        expect((view.locations.SJC?.counts[`R${BASE_MINUTE}`] ?? 0) >= 1).toBe(true)
        // failMode 'open' (a window of 0): never refused, but the loss is still marked for the snapshots.
        const openRoom = room('foreign-epoch-open')
        await coordinator.sync(report(openRoom, 'LHR', BASE_MS, {}))
        const open = await takeSlot(coordinator, { roomId: openRoom, location: 'LHR', minute: BASE_MINUTE, localLimit: 5, anywhereLimit: 5, token: 'open', recoveryMinutes: 0, epoch: 'lost-epoch' })
        expect(open.admitted).toBe(true)
        const openView = await coordinator.sync(report(openRoom, 'LHR', BASE_MS + 1000, { [a]: 1 }))
        expect(openView.locations.LHR?.counts[`R${BASE_MINUTE}`]).toBe(1)
      })

      if (harness.generations) {
        it('refuses a grant whose worker saw a later generation of the epoch than the store holds (an older copy put back), and marks it once', async () => {
          const roomId = room('older-copy-grant')
          const first = await coordinator.sync(report(roomId, 'SJC', BASE_MS, { [a]: 1 }))
          const g = first.generation!
          const ask = (token: string, generation: number) =>
            takeSlot(coordinator, { roomId, location: 'SJC', minute: BASE_MINUTE, localLimit: 5, anywhereLimit: 5, token, recoveryMinutes: 6, epoch: first.epoch!.id, generation })
          expect((await ask('current', g)).admitted).toBe(true)
          const ahead = await ask('ahead', g + 1000)
          expect({ admitted: ahead.admitted, recovering: ahead.recovering }).toEqual({ admitted: false, recovering: true })
          // Past the sighting now, as a sync's mark moves it: a lower sighting marks nothing more.
          expect((await ask('behind', g + 999)).recovering).toBe(true)
          const view = await coordinator.sync(report(roomId, 'LHR', BASE_MS + 1000, {}))
          expect(view.generation).toBe(g + 1001)
          expect(view.locations.SJC?.counts[`R${BASE_MINUTE}`]).toBe(1)
        })
      }

      if (harness.wipe && !harness.epochAtGrantFromExchange) {
        it('refuses a grant of a worker that knew the state before it was lost, before any sync creates the new one', async () => {
          const roomId = room('lost-grant')
          const first = await coordinator.sync(report(roomId, 'SJC', BASE_MS, { [a]: 3 }))
          await harness.wipe!(coordinator, roomId)
          const seen = { epoch: first.epoch!.id, ...(first.generation === undefined ? {} : { generation: first.generation }) }
          const asked = await takeSlot(coordinator, { roomId, location: 'SJC', minute: BASE_MINUTE, localLimit: 5, anywhereLimit: 5, token: 'warm', recoveryMinutes: 6, ...seen })
          expect({ admitted: asked.admitted, recovering: asked.recovering }).toEqual({ admitted: false, recovering: true })
          // A cold worker's grant (no view) is refused too; its first sync answers the new state, marked.
          expect((await takeSlot(coordinator, { roomId, location: 'LHR', minute: BASE_MINUTE, localLimit: 5, anywhereLimit: 5, token: 'cold', recoveryMinutes: 6 })).recovering).toBe(true)
          const after = await coordinator.sync(report(roomId, 'LHR', BASE_MS + 5000, {}))
          expect(after.epoch?.id === first.epoch?.id).toBe(false)
          expect(after.locations.SJC?.counts[`R${BASE_MINUTE}`]).toBe(1)
        })
      }

      if (harness.wipe) {
        it('answers a new epoch once the stored state is lost', async () => {
          const roomId = room('lost')
          const first = await coordinator.sync(report(roomId, 'SJC', BASE_MS, { [a]: 3 }))
          await harness.wipe!(coordinator, roomId)
          const after = await coordinator.sync(report(roomId, 'SJC', BASE_MS + 5000, {}))
          expect(after.epoch?.id === first.epoch?.id).toBe(false)
          expect(after.epoch?.startedAt).toBe(BASE_MS + 5000)
          expect(after.locations.SJC?.counts[a]).toBeUndefined()
        })
      }
    })
  })
}
