/**
 * The shared conformance suite, unchanged, under `deno test` against Deno KV in memory and in a file.
 * Run with `bash adapters/deno-kv/test.sh` (or `deno test -A adapters/deno-kv`).
 */
import { coordinatorConformance } from '../../test/conformance/coordinator-suite.ts'
import { denoKvCoordinator } from './index.ts'
import { testApi } from './test/test-api.ts'

// In memory a restart cannot drop the data, so `reopen` is a new coordinator (fresh isolate) on the same handle.
let memoryKv: Deno.Kv | undefined
coordinatorConformance(testApi, {
  name: 'deno-kv :memory:',
  create: async () => denoKvCoordinator((memoryKv = await Deno.openKv(':memory:'))),
  reopen: () => denoKvCoordinator(memoryKv!),
  close: () => memoryKv?.close(),
})

// In a file a restart is real: close the database and open the same file again.
let dir: string | undefined
let fileKv: Deno.Kv | undefined
coordinatorConformance(testApi, {
  name: 'deno-kv file, closed and reopened',
  create: async () => {
    dir = await Deno.makeTempDir({ prefix: 'wr-deno-kv-' })
    return denoKvCoordinator((fileKv = await Deno.openKv(`${dir}/room.db`)))
  },
  reopen: async () => {
    fileKv!.close()
    return denoKvCoordinator((fileKv = await Deno.openKv(`${dir}/room.db`)))
  },
  close: async () => {
    fileKv?.close()
    if (dir) await Deno.remove(dir, { recursive: true })
  },
})
