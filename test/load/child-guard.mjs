/**
 * Preloaded into every proxy process the load tests start (`node --import ./child-guard.mjs
 * dist/bin/hono-waiting-room.js …`): the proxy itself is unchanged, this only
 *
 * - ends the process if the runner goes away (its IPC channel closes), so no proxy outlives a killed run;
 * - ends it after WR_LOAD_MAX_LIFETIME_MS whatever happens (a bound on every child);
 * - with WR_LOAD_MEMORY_MS, prints `@@mem <ms> <rss> <heapUsed> <heapTotal> <external>` every that many ms
 *   to stderr, after a full garbage collection when the process runs with --expose-gc, so heapUsed is the
 *   memory the proxy really retains rather than wherever the collector happened to be.
 */
const lifetime = Number(process.env.WR_LOAD_MAX_LIFETIME_MS ?? 0)
if (lifetime > 0) setTimeout(() => process.exit(3), lifetime).unref()

if (process.send && process.channel) {
  process.on('disconnect', () => process.exit(4))
  process.channel.unref() // the channel must not keep a stopped proxy alive
}

const every = Number(process.env.WR_LOAD_MEMORY_MS ?? 0)
if (every > 0) {
  const sample = () => {
    if (typeof globalThis.gc === 'function') globalThis.gc()
    const m = process.memoryUsage()
    process.stderr.write(`@@mem ${Date.now()} ${m.rss} ${m.heapUsed} ${m.heapTotal} ${m.external}\n`)
  }
  setInterval(sample, every).unref()
}
