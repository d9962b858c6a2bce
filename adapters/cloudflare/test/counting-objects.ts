/**
 * @module
 * Test subclasses of the two Durable Objects: every RPC call an object receives is counted (so a test can
 * say how many object calls a request cost, object-to-object calls included), `restart()` aborts the
 * object the way an eviction or a deploy does — its memory is gone, its storage stays — and `wipe()`
 * deletes its storage and then aborts it: the room's state lost.
 */
import type { CounterRequest, CounterResult, SlotRequest, SlotResult } from '../../../src/coordination/coordinator.ts'
import type { LocationState, RoomEpoch, RoomState, WorkerReport } from '../../../src/coordination/state.ts'
import { WaitingRoomCounter } from '../counter-object.ts'
import { WaitingRoomGlobal } from '../global-object.ts'
import type { GrantMark } from '../grant-log.ts'
import type { ExchangeAnswer } from '../location-stage.ts'
import type { ObjectRoute } from '../protocol.ts'
import type { TrafficReference } from '../../../src/coordination/reference.ts'

export type CallCounts = Record<string, number>

export class CountingCounter extends WaitingRoomCounter {
  #calls: CallCounts = {}

  override async increment(request: CounterRequest, route?: ObjectRoute): Promise<CounterResult> {
    this.#calls.increment = (this.#calls.increment ?? 0) + 1
    return super.increment(request, route)
  }

  override async takeSlot(request: SlotRequest, route: ObjectRoute): Promise<SlotResult> {
    this.#calls.takeSlot = (this.#calls.takeSlot ?? 0) + 1
    return super.takeSlot(request, route)
  }

  override async sync(report: WorkerReport, route: ObjectRoute): Promise<RoomState> {
    this.#calls.sync = (this.#calls.sync ?? 0) + 1
    return super.sync(report, route)
  }

  async calls(): Promise<CallCounts> {
    return this.#calls
  }

  async restart(): Promise<void> {
    this.ctx.abort('test: object restarted')
  }

  async wipe(): Promise<void> {
    await this.ctx.storage.deleteAll()
    this.ctx.abort('test: storage deleted')
  }

  /** Runs the cleanup alarm now. */
  async cleanUp(): Promise<void> {
    await this.runAlarm(true)
  }

  /**
   * Brings the stored alarm forward to now, so workerd runs it as it would at its time (in a restarted object: with
   * nothing in memory). Answers the time it was set for (null: none set). Storage only: the object's state is
   * left as the restart left it.
   */
  async alarmNow(): Promise<number | null> {
    const at = await this.ctx.storage.getAlarm()
    if (at !== null) await this.ctx.storage.setAlarm(Date.now())
    return at
  }
}

export class CountingGlobal extends WaitingRoomGlobal {
  #calls: CallCounts = {}

  override async exchange(location: string, state: LocationState | null, now: number, epoch?: RoomEpoch, grants?: GrantMark): Promise<ExchangeAnswer> {
    this.#calls.exchange = (this.#calls.exchange ?? 0) + 1
    return super.exchange(location, state, now, epoch, grants)
  }

  override async fix(proposals: TrafficReference[], now: number): Promise<TrafficReference[]> {
    this.#calls.fix = (this.#calls.fix ?? 0) + 1
    return super.fix(proposals, now)
  }

  async calls(): Promise<CallCounts> {
    return this.#calls
  }

  async restart(): Promise<void> {
    this.ctx.abort('test: object restarted')
  }

  async wipe(): Promise<void> {
    await this.ctx.storage.deleteAll()
    this.ctx.abort('test: storage deleted')
  }

  /** The locations whose state this global object stores. */
  async locations(): Promise<string[]> {
    return [...this.ctx.storage.kv.list({ prefix: 'location:' })].map(([key]) => key.slice('location:'.length))
  }

  /** The minutes whose reference traffic table this global object stores. */
  async references(): Promise<number[]> {
    return [...this.ctx.storage.kv.list<TrafficReference>({ prefix: 'reference:' })].map(([, reference]) => reference.minute)
  }
}

interface TestStub {
  calls(): Promise<CallCounts>
  restart(): Promise<void>
  wipe(): Promise<void>
  cleanUp?(): Promise<void>
  alarmNow?(): Promise<number | null>
  locations?(): Promise<string[]>
  references?(): Promise<number[]>
}

interface TestNamespace {
  idFromName(name: string): unknown
  get(id: unknown): unknown
}

/**
 * Test routes shared by the test Workers: `GET /__test/calls?counter=a&counter=b&global=c` sums the
 * named objects' counts by method; `POST /__test/restart?counter=a` (or `global=`) restarts one;
 * `POST /__test/wipe?counter=a&global=b` deletes their storage and restarts them; `GET /__test/locations?global=b`
 * lists the locations a global object stores, `GET /__test/references?global=b` the minutes of its references;
 * `POST /__test/cleanup?counter=a` runs a counter object's cleanup alarm now; `POST /__test/alarm?counter=a` brings
 * its stored alarm forward to now and answers when each was set for (null: none).
 */
export async function objectTestRoute(request: Request, env: { WR_COUNTER: TestNamespace; WR_GLOBAL: TestNamespace }): Promise<Response | undefined> {
  const url = new URL(request.url)
  if (!url.pathname.startsWith('/__test/')) return undefined
  const stubs: TestStub[] = []
  for (const name of url.searchParams.getAll('counter')) stubs.push(env.WR_COUNTER.get(env.WR_COUNTER.idFromName(name)) as TestStub)
  for (const name of url.searchParams.getAll('global')) stubs.push(env.WR_GLOBAL.get(env.WR_GLOBAL.idFromName(name)) as TestStub)
  if (url.pathname === '/__test/calls') {
    const total: CallCounts = {}
    for (const stub of stubs) for (const [method, n] of Object.entries(await stub.calls())) total[method] = (total[method] ?? 0) + n
    return Response.json(total)
  }
  if (url.pathname === '/__test/restart') {
    // The abort rejects the call that caused it; that is the restart.
    for (const stub of stubs) await stub.restart().catch(() => {})
    return new Response('restarted')
  }
  if (url.pathname === '/__test/locations') {
    const locations = await Promise.all(stubs.map((stub) => stub.locations?.() ?? []))
    return Response.json(locations.flat())
  }
  if (url.pathname === '/__test/references') {
    const minutes = await Promise.all(stubs.map((stub) => stub.references?.() ?? []))
    return Response.json(minutes.flat())
  }
  if (url.pathname === '/__test/wipe') {
    for (const stub of stubs) await stub.wipe().catch(() => {})
    return new Response('wiped')
  }
  if (url.pathname === '/__test/alarm') {
    return Response.json(await Promise.all(stubs.map((stub) => stub.alarmNow?.() ?? null)))
  }
  if (url.pathname === '/__test/cleanup') {
    for (const stub of stubs) await stub.cleanUp?.()
    return new Response('cleaned up')
  }
  return new Response('unknown test route', { status: 404 })
}
