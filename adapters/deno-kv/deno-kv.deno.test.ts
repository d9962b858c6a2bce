/**
 * The shared conformance suite, unchanged, under `deno test` against Deno KV in memory and in a file.
 * Run with `bash adapters/deno-kv/test.sh` (or `deno test -A adapters/deno-kv`).
 */
import { coordinatorConformance } from '../../test/conformance/coordinator-suite.ts'
import { referencesConformance } from '../../test/conformance/references-suite.ts'
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

/**
 * A KV handle that notes in `expiresAt` when each key it sets with an expiry expires (Deno KV does not say), so
 * the references suite sees the stored references are bounded: their expiry is set, and near.
 */
function expiryNoting(kv: Deno.Kv, expiresAt: Map<string, number>): Deno.Kv {
  const atomic = () => {
    const op = kv.atomic()
    const set = op.set.bind(op)
    op.set = (key, value, options) => {
      if (options?.expireIn !== undefined) expiresAt.set(JSON.stringify(key.map(String)), Date.now() + options.expireIn)
      return set(key, value, options)
    }
    return op
  }
  return new Proxy(kv, {
    get(target, name) {
      if (name === 'atomic') return atomic
      const value: unknown = Reflect.get(target, name, target)
      return typeof value === 'function' ? value.bind(target) : value
    },
  })
}

// The references suite on a file, each process its own connection.
let referencesDir: string | undefined
const referenceKvs: Deno.Kv[] = []
const expiresAt = new Map<string, number>()
const openReferences = async () => {
  const kv = await Deno.openKv(`${referencesDir}/room.db`)
  referenceKvs.push(kv)
  return denoKvCoordinator(expiryNoting(kv, expiresAt))
}
referencesConformance(testApi, {
  name: 'deno-kv file, a new connection per process',
  create: async () => {
    referencesDir = await Deno.makeTempDir({ prefix: 'wr-deno-kv-refs-' })
    return openReferences()
  },
  reopen: openReferences,
  close: async () => {
    for (const kv of referenceKvs.splice(0)) kv.close()
    if (referencesDir) await Deno.remove(referencesDir, { recursive: true })
  },
  storedReferences: async (roomId) => {
    const stored = []
    for await (const entry of referenceKvs[0]!.list({ prefix: ['hono-waiting-room', roomId, 'reference'] })) {
      const at = expiresAt.get(JSON.stringify(entry.key.map(String)))
      stored.push({ minute: Number(entry.key.at(-1)), expiresInMs: at === undefined ? undefined : at - Date.now() })
    }
    return stored
  },
})
