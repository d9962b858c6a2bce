/// <reference types="../cloudflare-workers.d.ts" />
/**
 * @module
 * The Worker behind the Durable Object half of the benchmark (issue #16: a decision against a bare object
 * doing the same storage writes). `POST /bench?kind=&n=&inFlight=&round=` makes `n` calls from this Worker,
 * `inFlight` at a time, and answers when all are done:
 *
 * - `decision`: `durableObjectCoordinator().takeSlot` for a location with a share — one RPC to its
 *   `WaitingRoomCounter`, which reads the token, checks the count, inserts the slot row and counts the
 *   admission in its stage;
 * - `bare`: one RPC to `BareSlots`, which inserts the same row into the same table, and nothing else;
 * - `rpc`: one RPC to `BareSlots` that does nothing: the floor both stand on.
 */
import { DurableObject } from 'cloudflare:workers'
import { durableObjectCoordinator } from '../coordinator.ts'
import type { DurableObjectIdLike, DurableObjectNamespaceLike } from '../protocol.ts'

export { WaitingRoomCounter, WaitingRoomGlobal } from '../index.ts'

const MINUTE = Math.floor(Date.now() / 60_000)

/** The same table and the same INSERT as `MinuteCounters`, with nothing around them. */
export class BareSlots extends DurableObject<Record<string, unknown>> {
  #ready = false

  async insert(minute: number, token: string, seq: number): Promise<void> {
    const sql = this.ctx.storage.sql
    if (!this.#ready) {
      sql.exec('CREATE TABLE IF NOT EXISTS wr_slots (minute INTEGER NOT NULL, token TEXT NOT NULL, seq INTEGER NOT NULL, PRIMARY KEY (minute, token))')
      this.#ready = true
    }
    sql.exec('INSERT INTO wr_slots (minute, token, seq) VALUES (?, ?, ?)', minute, token, seq)
  }

  async nothing(): Promise<void> {}
}

interface Env {
  WR_COUNTER: DurableObjectNamespaceLike
  WR_GLOBAL: DurableObjectNamespaceLike
  BARE: DurableObjectNamespaceLike
}

interface BareStub {
  insert(minute: number, token: string, seq: number): Promise<void>
  nothing(): Promise<void>
}

let bareId: DurableObjectIdLike | undefined
let bareSeq = 0

async function inParallel(n: number, inFlight: number, call: (i: number) => Promise<unknown>): Promise<void> {
  let next = 0
  await Promise.all(Array.from({ length: inFlight }, async () => {
    while (next < n) await call(next++)
  }))
}

export default {
  async fetch(request: Request, env: Env): Promise<Response> {
    const url = new URL(request.url)
    const kind = url.searchParams.get('kind')
    const n = Number(url.searchParams.get('n') ?? 100)
    const inFlight = Number(url.searchParams.get('inFlight') ?? 1)
    const round = url.searchParams.get('round') ?? '0'
    // As the coordinator does for its objects: ids cached per isolate, a stub per call.
    bareId ??= env.BARE.idFromName('bench')
    const bare = () => env.BARE.get(bareId!) as BareStub
    const coordinator = durableObjectCoordinator({ counters: env.WR_COUNTER, global: env.WR_GLOBAL, cache: false })
    const token = (i: number) => `${kind}-${inFlight}-${round}-${i}`
    if (kind === 'decision') {
      await inParallel(n, inFlight, async (i) => {
        const slot = await coordinator.takeSlot!({ roomId: 'bench', location: 'SJC', minute: MINUTE, localLimit: 1e9, anywhereLimit: 0, token: token(i) })
        if (!slot.admitted) throw new Error('bench: a decision was refused')
      })
    } else if (kind === 'bare') {
      await inParallel(n, inFlight, (i) => bare().insert(MINUTE, token(i), bareSeq++))
    } else if (kind === 'rpc') {
      await inParallel(n, inFlight, () => bare().nothing())
    } else {
      return new Response(`unknown kind ${kind}`, { status: 404 })
    }
    return new Response('done')
  },
}
