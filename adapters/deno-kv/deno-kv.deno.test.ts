/**
 * The shared conformance suite, unchanged, under `deno test` against Deno KV in memory and in a file.
 * Run with `bash adapters/deno-kv/test.sh` (or `deno test -A adapters/deno-kv`).
 */
import { coordinatorConformance } from '../../test/conformance/coordinator-suite.ts'
import { denoKvCoordinator } from './index.ts'
import { testApi } from './test/test-api.ts'

/** Deletes every key of a room (the coordinator's default prefix), as a replaced database file would. */
async function wipeRoom(kv: Deno.Kv, roomId: string): Promise<void> {
  for await (const entry of kv.list({ prefix: ['hono-waiting-room', roomId] })) await kv.delete(entry.key)
}

// In memory a restart cannot drop the data, so `reopen` is a new coordinator (fresh isolate) on the same handle.
let memoryKv: Deno.Kv | undefined
coordinatorConformance(testApi, {
  name: 'deno-kv :memory:',
  create: async () => denoKvCoordinator((memoryKv = await Deno.openKv(':memory:'))),
  reopen: () => denoKvCoordinator(memoryKv!),
  close: () => memoryKv?.close(),
  wipe: (_, roomId) => wipeRoom(memoryKv!, roomId),
  generations: true,
})

// In a file, `reopen` is another process: a new connection to the same file. The suite may keep using the
// previous coordinator beside it (two processes at once), so earlier connections close only at the end;
// test/adapter.deno.test.ts closes a file and opens it again.
let dir: string | undefined
const fileKvs: Deno.Kv[] = []
const openFile = async () => {
  const kv = await Deno.openKv(`${dir}/room.db`)
  fileKvs.push(kv)
  return denoKvCoordinator(kv)
}
coordinatorConformance(testApi, {
  name: 'deno-kv file, a new connection per reopen',
  create: async () => {
    dir = await Deno.makeTempDir({ prefix: 'wr-deno-kv-' })
    return openFile()
  },
  reopen: openFile,
  close: async () => {
    for (const kv of fileKvs.splice(0)) kv.close()
    if (dir) await Deno.remove(dir, { recursive: true })
  },
  wipe: (_, roomId) => wipeRoom(fileKvs.at(-1)!, roomId),
  generations: true,
})
