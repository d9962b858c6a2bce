/**
 * The room as the store has it, read by the load tests through the adapters' own code in dist/ (a `sync`
 * with an empty report, as any worker would), and the Redis keys of the test rooms deleted after a run.
 */
import { randomUUID } from 'node:crypto'
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'

/**
 * The snapshot module of the build: src/admission/ since the sources were split by concern; the older flat
 * layout too, so these tests also run against a checkout from before (to show a fix against the old code).
 */
function importSnapshot(root) {
  const split = join(root, 'dist', 'src', 'admission', 'snapshot.js')
  return import(pathToFileURL(existsSync(split) ? split : join(root, 'dist', 'src', 'snapshot.js')).href)
}

/** A node-redis client on `redisUrl` (no reconnects: a lost server fails the test at once). */
export async function redisClient(redisUrl) {
  const { createClient } = await import('redis')
  const client = createClient({ url: redisUrl, socket: { connectTimeout: 3000, reconnectStrategy: false } })
  client.on('error', () => {})
  await client.connect()
  return client
}

/** The room's state through the adapter (a `sync` with an empty report), its snapshot, and per-minute fields. */
export async function readRoom({ root, redisUrl }, backend, roomId, storePath, sessionMinutes) {
  const now = Date.now()
  const report = { id: `load-recount-${randomUUID()}`, roomId, location: 'local', at: now, keepMinutes: sessionMinutes + 6, deltas: {} }
  let state
  if (backend === 'sqlite') {
    const { sqliteStoreCoordinator } = await import(pathToFileURL(join(root, 'dist', 'adapters', 'bun-sqlite', 'node.js')).href)
    const coordinator = sqliteStoreCoordinator(storePath)
    try {
      state = await coordinator.sync(report)
    } finally {
      coordinator.close()
    }
  } else {
    const { redisCoordinator, fromNodeRedis } = await import(pathToFileURL(join(root, 'dist', 'adapters', 'upstash', 'index.js')).href)
    const client = await redisClient(redisUrl)
    try {
      state = await redisCoordinator(fromNodeRedis(client)).sync(report)
    } finally {
      await client.close()
    }
  }
  const { buildSnapshot } = await importSnapshot(root)
  const snapshot = buildSnapshot(state, now, sessionMinutes)
  const admissions = {}
  const active = {}
  for (const location of Object.values(state.locations)) {
    for (const [field, value] of Object.entries(location.counts)) {
      const minute = Number(field.slice(1).split('.')[0])
      if (field[0] === 'n') admissions[minute] = (admissions[minute] ?? 0) + value
      if (field[0] === 'a') active[minute] = (active[minute] ?? 0) + value
    }
  }
  return { now, minute: Math.floor(now / 60_000), snapshot, admissions, active, locations: Object.keys(state.locations) }
}

/** Deletes every key of these rooms (`wr:{roomId}:*`), the load tests' own. */
export async function deleteRedisRooms(redisUrl, roomIds) {
  if (roomIds.length === 0) return
  const client = await redisClient(redisUrl)
  try {
    for (const roomId of roomIds) {
      for await (const keys of client.scanIterator({ MATCH: `wr:{${roomId}}:*`, COUNT: 1000 })) if (keys.length > 0) await client.unlink(keys)
    }
  } finally {
    await client.close()
  }
}

/** Two minute → count maps, equal over the minutes the store still keeps (missing = 0). */
export function sameCounts(store, seen, fromMinute, slack = 0) {
  const minutes = [...new Set([...Object.keys(store), ...Object.keys(seen)].map(Number))].filter((m) => m >= fromMinute).sort()
  const diffs = minutes.filter((m) => !within(store[m] ?? 0, seen[m] ?? 0, slack)).map((m) => `minute ${m}: store ${store[m] ?? 0}, seen ${seen[m] ?? 0}`)
  const shown = minutes.map((m) => `${m % 1000}:${store[m] ?? 0}`).join(' ')
  return { ok: diffs.length === 0, diffs, shown }
}

/**
 * The store may hold more than the generator saw, never less, by at most `slack`: an admission is counted by
 * the step that grants its slot, and a grant whose reply came after the room's coordinator timeout is counted
 * while that user was answered with the fail mode (an over-count: the room errs towards full).
 */
export const within = (store, seen, slack) => store >= seen && store - seen <= slack
