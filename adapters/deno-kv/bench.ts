/**
 * Decisions per second through the Deno KV adapter, next to a bare `atomic().sum()` in the same run, on
 * KV in memory and in a file. Prints figures; asserts nothing.
 *
 *   node_modules/.bin/deno run -A adapters/deno-kv/bench.ts [operations per case, default 4000]
 *
 * A decision here is one `increment` that takes a slot, as the core asks for it (with the asking
 * `location`): a check-loop commit with its token record and the admission's counts; "full" is the same
 * call once the minute's slots are gone (reads only). `sum` is the floor: one blind commit, no read, no
 * condition. "a decision's writes" is one blind commit of the same five mutations a decision commits
 * (counter, token, `a`/`n` sums, `@updated`), without the read and the check.
 */
import { denoKvCoordinator, type KvLike } from './index.ts'

// Deno's types are not in Node's tsc run over adapters/, so the few calls used are typed here.
type Kv = KvLike & { close(): void }
const Deno = (globalThis as unknown as {
  Deno: { openKv(path?: string): Promise<Kv>; makeTempDir(): Promise<string>; remove(path: string, options: { recursive: boolean }): Promise<void>; args: string[] }
}).Deno

const operations = Number(Deno.args[0] ?? 4000)
const MINUTE = Math.floor(Date.now() / 60_000)

/** Runs `total` calls of `op`, at most `inFlight` at once; returns calls per second. */
async function rate(total: number, inFlight: number, op: (i: number) => Promise<unknown>): Promise<number> {
  let next = 0
  const started = performance.now()
  await Promise.all(
    Array.from({ length: inFlight }, async () => {
      while (next < total) await op(next++)
    }),
  )
  return total / ((performance.now() - started) / 1000)
}

/** The five mutations of a decision's commit, blind: what the adapter adds is the read and the check. */
function decisionWrites(kv: Kv, inFlight: number, i: number): Promise<unknown> {
  const at = ['bench', 'writes', inFlight]
  return kv
    .atomic()
    .set([...at, 'counter'], i, { expireIn: 240_000 })
    .set([...at, 'token', i], i, { expireIn: 240_000 })
    .sum([...at, 'a'], 1n)
    .sum([...at, 'n'], 1n)
    .max([...at, '@updated'], BigInt(MINUTE * 60_000))
    .commit()
}

async function benchKv(label: string, kv: Kv): Promise<void> {
  const rows: [string, number][] = []
  for (const inFlight of [1, 64]) {
    rows.push([`bare atomic().sum(), ${inFlight} in flight`, await rate(operations, inFlight, () => kv.atomic().sum(['bench', 'sum', inFlight], 1n).commit())])
    rows.push([`bare atomic(), a decision's writes, ${inFlight} in flight`, await rate(operations, inFlight, (i) => decisionWrites(kv, inFlight, i))])
    const coordinator = denoKvCoordinator(kv)
    const roomId = `take-${inFlight}`
    rows.push([
      `adapter decisions (slot taken), ${inFlight} in flight`,
      await rate(operations, inFlight, (i) => coordinator.increment({ roomId, scope: 'local', location: 'local', minute: MINUTE, limit: 1e9, token: `t${i}` })),
    ])
    const fullRoom = `full-${inFlight}`
    await coordinator.increment({ roomId: fullRoom, scope: 'local', minute: MINUTE, limit: 1, token: 'first' })
    rows.push([
      `adapter decisions (minute full), ${inFlight} in flight`,
      await rate(operations, inFlight, (i) => coordinator.increment({ roomId: fullRoom, scope: 'local', minute: MINUTE, limit: 1, token: `t${i}` })),
    ])
  }
  // Four "isolates" (coordinators without a shared combiner) on one counter: commits conflict and retry.
  const isolates = Array.from({ length: 4 }, () => denoKvCoordinator(kv))
  rows.push([
    'adapter decisions, 4 isolates × 16 in flight, one counter',
    await rate(operations, 64, (i) => isolates[i % 4]!.increment({ roomId: 'race', scope: 'local', minute: MINUTE, limit: 1e9, token: `t${i}` })),
  ])
  const reporter = denoKvCoordinator(kv)
  const deltas = { [`a${MINUTE}`]: 3, [`n${MINUTE}`]: 3, [`t${MINUTE}`]: 5, [`w${MINUTE}.${MINUTE - 1}`]: -2 }
  rows.push([
    'sync (4-field report + state read), 1 in flight',
    await rate(Math.ceil(operations / 4), 1, () => reporter.sync({ id: crypto.randomUUID(), roomId: 'sync', location: 'local', at: Date.now(), keepMinutes: 11, deltas })),
  ])
  console.log(`\nDeno KV ${label}, ${operations} operations per row`)
  for (const [name, perSecond] of rows) console.log(`  ${name.padEnd(62)} ${Math.round(perSecond).toLocaleString('en-US').padStart(9)} /s`)
}

const memory = await Deno.openKv(':memory:')
await benchKv('in memory', memory)
memory.close()

const dir = await Deno.makeTempDir()
const file = await Deno.openKv(`${dir}/bench.db`)
await benchKv('in a file', file)
file.close()
await Deno.remove(dir, { recursive: true })
