/**
 * @module
 * The Durable Object half of the benchmark (issue #16): decisions per second through `takeSlot` against a
 * bare object doing the same storage write (one INSERT into the same table), and against an RPC that does
 * nothing, all called from a Worker in workerd. Each round times one batch of each kind, in alternating
 * order, so a busy machine slows them alike; figures are medians over rounds, ratios per round.
 */
import type { Miniflare } from 'miniflare'
import { bundleWorker, startWorkerd, tempDir } from './workerd.ts'

const KINDS = ['decision', 'bare', 'rpc'] as const
type Kind = (typeof KINDS)[number]

export interface ObjectFigures {
  case: string
  'decisions/s': number
  'bare INSERT/s': number
  'empty RPC/s': number
  'decision / bare': number
  'rounds (min–max)': string
}

const median = (values: number[]): number => {
  const sorted = [...values].sort((x, y) => x - y)
  return sorted[Math.floor(sorted.length / 2)]!
}

/** Calls per second of one batch of `n` calls, `inFlight` at a time, made inside the Worker. */
async function batch(mf: Miniflare, kind: Kind, n: number, inFlight: number, round: string): Promise<number> {
  const started = performance.now()
  const response = await mf.dispatchFetch(`http://bench/bench?kind=${kind}&n=${n}&inFlight=${inFlight}&round=${round}`, { method: 'POST' })
  const body = await response.text()
  if (!response.ok) throw new Error(`bench ${kind}: ${body}`)
  return n / ((performance.now() - started) / 1000)
}

export async function runObjectBench(callsPerBatch: number, rounds: number): Promise<ObjectFigures[]> {
  const dir = await tempDir('bench-objects')
  let mf: Miniflare | undefined
  try {
    const scriptPath = await bundleWorker('adapters/cloudflare/test/bench-worker.ts', dir.path)
    mf = await startWorkerd({ scriptPath, extraObjects: { BARE: 'BareSlots' } })
    const figures: ObjectFigures[] = []
    for (const inFlight of [1, 16]) {
      for (const kind of KINDS) await batch(mf, kind, callsPerBatch, inFlight, 'warm-up')
      const rates: Record<Kind, number[]> = { decision: [], bare: [], rpc: [] }
      const ratios: number[] = []
      for (let round = 0; round < rounds; round++) {
        const order = round % 2 ? [...KINDS].reverse() : KINDS
        const perRound = {} as Record<Kind, number>
        for (const kind of order) perRound[kind] = await batch(mf, kind, callsPerBatch, inFlight, String(round))
        for (const kind of KINDS) rates[kind].push(perRound[kind])
        ratios.push(perRound.decision / perRound.bare)
      }
      figures.push({
        case: `Worker → object, ${inFlight} in flight`,
        'decisions/s': Math.round(median(rates.decision)),
        'bare INSERT/s': Math.round(median(rates.bare)),
        'empty RPC/s': Math.round(median(rates.rpc)),
        'decision / bare': Math.round(median(ratios) * 100) / 100,
        'rounds (min–max)': `${Math.min(...ratios).toFixed(2)}–${Math.max(...ratios).toFixed(2)}`,
      })
    }
    return figures
  } finally {
    await mf?.dispose()
    await dir.remove()
  }
}
