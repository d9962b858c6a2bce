/**
 * break14g — how long an admitted request waits while the store is slow or hangs, now that a renewal in its confirmed
 * cookie's last minute waits "until the exchange carrying its move settles" (commit 222e2ef: at most the exchange in
 * flight and its own, each bounded by coordinatorTimeoutMs). README "Security and reliability", renewal row, still
 * says "in the confirmed cookie's last minute up to coordinatorTimeoutMs".
 * Attack: 1-minute sessions (every renewal is in its last minute), T = coordinatorTimeoutMs = 600, 1–3 workers on one
 * memory store, 6–12 users checking in at random moments across 3 minutes; the store's every call (sync and grant)
 * is: fixed slow 0.9 T, jittered 0.1–0.95 T, slow only for syncs, answering after the timeout (1.3 T), hanging, or
 * alternating slow / hang per call. Measured: max and p99 of admitted requests' latency. Asserted: every admitted
 * request within the commit's bound 2 T + 100 ms, plus one grant (T) for a pending renewal re-entering, plus one
 * sync (T) for a snapshot older than maxSnapshotAgeMs — i.e. ≤ 4 T + 100.
 */
import { describe, expect, it } from 'vitest'
import { memoryCoordinator } from '../../../adapters/memory/index.ts'
import type { Coordinator } from '../../../src/index.ts'
import { MINUTE, sleep, worker } from '../break14d/slow.ts'

const T = 600
type Mode = 'fixed' | 'jitter' | 'sync-only' | 'after-timeout' | 'hang' | 'alternate'

function rng(seed: number) {
  let x = seed * 2654435761 + 3
  return () => ((x = (Math.imul(x ^ (x >>> 15), 2246822507) + 0x6d2b79f5) >>> 0) / 2 ** 32)
}

function misbehaving(inner: Coordinator, mode: { on: boolean; kind: Mode }, random: () => number): Coordinator {
  const delay = (grant: boolean): number | 'hang' => {
    if (!mode.on) return 0
    switch (mode.kind) {
      case 'fixed': return 0.9 * T
      case 'jitter': return (0.1 + random() * 0.85) * T
      case 'sync-only': return grant ? 0 : 0.9 * T
      case 'after-timeout': return 1.3 * T
      case 'hang': return 'hang'
      case 'alternate': return random() < 0.5 ? 0.9 * T : 'hang'
    }
  }
  const gate = async <R>(grant: boolean, f: () => Promise<R>): Promise<R> => {
    const d = delay(grant)
    if (d === 'hang') return new Promise<R>(() => {})
    const answer = await f() // applied on arrival: only the reply is late
    if (d) await sleep(d)
    return answer
  }
  return { name: 'misbehaving', increment: (r) => gate(true, () => inner.increment(r)), takeSlot: (r) => gate(true, () => inner.takeSlot!(r)), sync: (r) => gate(false, () => inner.sync(r)) }
}

async function run(kind: Mode, seed: number) {
  const random = rng(seed)
  const n = 6 + Math.floor(random() * 7)
  const inner = memoryCoordinator()
  const m = 29_600_000 + seed * 10
  const clock = { now: m * MINUTE + 1_000 }
  const mode = { on: false, kind }
  const options = { totalActiveUsers: n, newUsersPerMinute: n, sessionDurationMinutes: 1, failMode: 'closed' as const, coordinatorTimeoutMs: T, syncIntervalMs: 100 }
  const roomId = `b14g-lat-${kind}-${seed}`
  const ws = Array.from({ length: 1 + Math.floor(random() * 3) }, () => worker(misbehaving(inner, mode, random), clock, roomId, options))
  const cookies: (string | undefined)[] = []
  for (let i = 0; i < n; i++) { const r = await ws[0]!(undefined); if (!r.admitted) throw new Error('setup'); cookies.push(r.fresh) }
  mode.on = true
  const latencies: number[] = []
  // 3 minutes; in each, every user checks in twice at random moments (the clock advances with real time meanwhile)
  for (let k = 1; k <= 3; k++) {
    clock.now = (m + k) * MINUTE + 1_000
    await Promise.all(cookies.map(async (_, i) => {
      for (let j = 0; j < 2; j++) {
        await sleep(Math.floor(random() * 400))
        const t = performance.now()
        const r = await ws[Math.floor(random() * ws.length)]!(cookies[i])
        const ms = performance.now() - t
        if (r.admitted) latencies.push(ms)
        if (r.fresh) cookies[i] = r.fresh
      }
    }))
  }
  latencies.sort((a, b) => a - b)
  const p99 = latencies[Math.floor(latencies.length * 0.99)] ?? 0
  return { kind, seed, n, workers: ws.length, admitted: latencies.length, p50: Math.round(latencies[latencies.length >> 1] ?? 0), p99: Math.round(p99), max: Math.round(latencies.at(-1) ?? 0) }
}

describe('break14g: admitted requests stay bounded while the store is slow or hangs (1-minute sessions)', () => {
  for (const kind of ['fixed', 'jitter', 'sync-only', 'after-timeout', 'hang', 'alternate'] as const) {
    it(`${kind}: max ≤ 4 T + 100 ms`, async () => {
      const outs = []
      for (let seed = 1; seed <= 2; seed++) outs.push(await run(kind, seed))
      console.log(outs.map((o) => JSON.stringify(o)).join('\n'))
      for (const o of outs) expect(o.max).toBeLessThanOrEqual(4 * T + 100)
    }, 60_000)
  }
})
