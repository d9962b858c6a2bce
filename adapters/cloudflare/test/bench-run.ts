/**
 * @module
 * The benchmark behind `bench.mjs`: request latency through miniflare for the example's app, next to a
 * bare Worker request through the same `dispatchFetch` path, one request at a time. Prints; asserts nothing.
 */
import type { Miniflare } from 'miniflare'
import { objectCalls } from './remote-coordinator.ts'
import { bundleWorker, startWorkerd, tempDir } from './workerd.ts'

export { runObjectBench } from './bench-objects.ts'

const MINUTE_MS = 60_000

interface Figures {
  case: string
  median: string
  p99: string
  'object calls / request': string
}

interface Case {
  name: string
  request: () => Promise<{ arrayBuffer(): Promise<ArrayBuffer> }>
  times: number[]
}

const quantile = (sorted: number[], q: number): number => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!

/**
 * Runs every case `rounds` times, one request at a time, taking the cases in turn within each round so
 * a busy machine slows them all alike.
 */
async function interleaved(cases: Case[], rounds: number): Promise<void> {
  for (let round = 0; round < rounds; round++) {
    for (const c of cases) {
      const started = performance.now()
      await (await c.request()).arrayBuffer()
      c.times.push(performance.now() - started)
    }
  }
}

export async function runBench(requests: number): Promise<Figures[]> {
  const dir = await tempDir('bench')
  let mf: Miniflare | undefined
  try {
    const scriptPath = await bundleWorker('examples/cloudflare-workers/test/worker.ts', dir.path)
    mf = await startWorkerd({ scriptPath, bindings: { WAITING_ROOM_SECRET: 'bench-secret-0123456789abcdef0123456789' } })
    const worker = mf
    const setClock = async (ms: number) => void (await (await worker.dispatchFetch(`http://test/__test/clock?ms=${ms}`)).text())
    const get = (host: string, colo: string, cookie?: string) =>
      worker.dispatchFetch(`https://${host}/api/me`, { headers: cookie ? { cookie } : {}, cf: { colo } } as never)
    const start = Math.floor(Date.now() / MINUTE_MS) * MINUTE_MS

    // Minute 0: new users in SJC only. They are the traffic history that gives SJC its share two minutes
    // later (one slot per user seen, as the limits are far above the load): enough for every SJC user below.
    await setClock(start + 1000)
    const warmup: Case[] = [{ name: 'warm-up', request: () => get('bench.test', 'SJC'), times: [] }]
    await interleaved(warmup, requests + 50)
    await setClock(start + 2 * MINUTE_MS + 1000)
    const first = await get('bench.test', 'SJC') // the minute's first request also reports, in the background
    const cookie = first.headers.get('set-cookie')!.split(';')[0]!
    await first.arrayBuffer()
    await new Promise((resolve) => setTimeout(resolve, 200))

    const cases: Case[] = [
      { name: 'bare Worker request', request: () => get('bare.test', 'SJC'), times: [] },
      // SJC has a share: its location object decides with its own counter.
      { name: 'new user, SJC (location object)', request: () => get('bench.test', 'SJC'), times: [] },
      // NRT saw no traffic: no share, so its location object asks the room's Anywhere object (and counts the grant).
      { name: 'new user, NRT (Anywhere object)', request: () => get('bench.test', 'NRT'), times: [] },
      { name: 'admitted user', request: () => get('bench.test', 'SJC', cookie), times: [] },
    ]
    await interleaved(cases, 20) // warm every path
    for (const c of cases) c.times = []
    const objects = { counter: ['bench:SJC', 'bench:NRT', 'bench:*'], global: ['bench'] }
    const figures: Figures[] = []
    for (const c of cases) {
      // Calls are counted per case in a separate pass, so counting does not slow the timed rounds.
      const before = await objectCalls(worker, objects)
      await interleaved([{ ...c, times: [] }], 20)
      const after = await objectCalls(worker, objects)
      const calls = Object.keys(after)
        .map((method) => ({ method, perRequest: ((after[method] ?? 0) - (before[method] ?? 0)) / 20 }))
        .filter((call) => call.perRequest > 0)
      figures.push({ case: c.name, median: '', p99: '', 'object calls / request': calls.map((call) => `${call.perRequest.toFixed(2)} ${call.method}`).join(', ') || '0' })
    }
    await interleaved(cases, requests)
    cases.forEach((c, i) => {
      const sorted = [...c.times].sort((x, y) => x - y)
      figures[i]!.median = `${quantile(sorted, 0.5).toFixed(2)} ms`
      figures[i]!.p99 = `${quantile(sorted, 0.99).toFixed(2)} ms`
    })
    return figures
  } finally {
    await mf?.dispose()
    await dir.remove()
  }
}
