/**
 * @module
 * A coordinator in the test process whose every call runs in workerd: it posts to the bridge Worker,
 * which calls the real `durableObjectCoordinator` there. Also reads, restarts and cleans up objects for tests.
 */
import type { Miniflare } from 'miniflare'
import type { Coordinator, CounterRequest, CounterResult, SlotRequest, SlotResult } from '../../../src/coordination/coordinator.ts'
import type { RoomState, WorkerReport } from '../../../src/coordination/state.ts'
import type { HistoryBatch, HistoryQuery, HistoryRow } from '../../../src/history/model.ts'
import type { CallCounts } from './counting-objects.ts'

export interface RemoteCoordinator extends Coordinator {
  takeSlot(request: SlotRequest): Promise<SlotResult>
}

/**
 * `mf` may be a function: the coordinator then calls whichever instance it returns, so one made before a
 * restart (a new Miniflare over the same storage) keeps working after it, as a second worker would.
 */
export function remoteCoordinator(mf: Miniflare | (() => Miniflare), query = ''): RemoteCoordinator {
  const current = typeof mf === 'function' ? mf : () => mf
  async function call<T>(method: string, argument: unknown): Promise<T> {
    const response = await current().dispatchFetch(`http://bridge/coordinator/${method}${query}`, { method: 'POST', body: JSON.stringify(argument) })
    const body = (await response.json()) as T & { error?: string }
    if (!response.ok) throw new Error(`${method} failed in workerd: ${body.error}`)
    return body
  }
  return {
    name: 'cloudflare',
    // As the real coordinator in workerd says (coordinator.ts): the flag does not cross the bridge.
    fixesReferences: true,
    increment: (request: CounterRequest) => call<CounterResult>('increment', request),
    sync: (report: WorkerReport) => call<RoomState>('sync', report),
    takeSlot: (request: SlotRequest) => call<SlotResult>('takeSlot', request),
    recordHistory: async (batch: HistoryBatch) => {
      await call<null>('recordHistory', batch)
    },
    readHistory: (query: HistoryQuery) => call<HistoryRow[]>('readHistory', query),
  }
}

const objectQuery = (objects: { counter?: string[]; global?: string[] }): string => {
  const query = new URLSearchParams()
  for (const name of objects.counter ?? []) query.append('counter', name)
  for (const name of objects.global ?? []) query.append('global', name)
  return query.toString()
}

/** RPC calls the named objects received, summed by method. */
export async function objectCalls(mf: Miniflare, objects: { counter?: string[]; global?: string[] }): Promise<CallCounts> {
  const response = await mf.dispatchFetch(`http://test/__test/calls?${objectQuery(objects)}`)
  return (await response.json()) as CallCounts
}

/** Aborts the named objects: memory gone, storage kept (an eviction or a deploy mid-minute). */
export async function restartObjects(mf: Miniflare, objects: { counter?: string[]; global?: string[] }): Promise<void> {
  const response = await mf.dispatchFetch(`http://test/__test/restart?${objectQuery(objects)}`, { method: 'POST' })
  await response.text()
}

/**
 * Deletes everything the room's objects store and restarts them — its global object, its Anywhere object and
 * the object of every location the global object knows, plus `locations` — as a lost backend would.
 */
export async function wipeRoom(mf: Miniflare, roomId: string, locations: string[] = []): Promise<void> {
  const known = (await (await mf.dispatchFetch(`http://test/__test/locations?${objectQuery({ global: [roomId] })}`)).json()) as string[]
  const counter = [...new Set([...known, ...locations, '*'])].map((location) => `${roomId}:${location}`)
  const response = await mf.dispatchFetch(`http://test/__test/wipe?${objectQuery({ counter, global: [roomId] })}`, { method: 'POST' })
  await response.text()
}

/** The minutes whose reference traffic table the room's global object stores (pruned by the reports' clock: no expiry). */
export async function storedReferences(mf: Miniflare, roomId: string): Promise<{ minute: number }[]> {
  const minutes = (await (await mf.dispatchFetch(`http://test/__test/references?${objectQuery({ global: [roomId] })}`)).json()) as number[]
  return minutes.map((minute) => ({ minute }))
}

/** Runs the named counter objects' cleanup alarm now. */
export async function cleanUpObjects(mf: Miniflare, counters: string[]): Promise<void> {
  const response = await mf.dispatchFetch(`http://test/__test/cleanup?${objectQuery({ counter: counters })}`, { method: 'POST' })
  await response.text()
}

/**
 * Brings the named counter objects' stored alarms forward to now (workerd runs each soon after, as at its time);
 * answers when each was set for (null: none was set).
 */
export async function alarmNow(mf: Miniflare, counters: string[]): Promise<(number | null)[]> {
  const response = await mf.dispatchFetch(`http://test/__test/alarm?${objectQuery({ counter: counters })}`, { method: 'POST' })
  return (await response.json()) as (number | null)[]
}
