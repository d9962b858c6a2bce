/**
 * Preloaded into every proxy process the load tests start (`node --import ./child-guard.mjs
 * dist/bin/hono-waiting-room.js …`): the proxy itself is unchanged, this only
 *
 * - ends the process if the runner goes away (its IPC channel closes), so no proxy outlives a killed run;
 * - ends it after WR_LOAD_MAX_LIFETIME_MS whatever happens (a bound on every child);
 * - with WR_LOAD_MEMORY_MS, prints `@@mem <ms> <rss> <heapUsed> <heapTotal> <external>` every that many ms
 *   to stderr, after a full garbage collection when the process runs with --expose-gc, so heapUsed is the
 *   memory the proxy really retains rather than wherever the collector happened to be;
 * - with WR_LOAD_CRASH_CLAIM (a file path; the crash case, crash.mjs), crashes the process the moment it has
 *   written its first answer to a user the room let in (the origin's `x-origin-hit` header) — if it is the
 *   first of its group to get there: it creates the file exclusively (one process wins), writes the time
 *   into it, and sends itself SIGKILL. Nothing runs after that, as in a real crash; the answer already
 *   written reaches the user, as the kernel still sends a dead process's written bytes.
 */
import { closeSync, openSync, writeSync } from 'node:fs'
import { ServerResponse } from 'node:http'

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

const claim = process.env.WR_LOAD_CRASH_CLAIM
if (claim) {
  const writeHead = ServerResponse.prototype.writeHead
  ServerResponse.prototype.writeHead = function crashAfterAdmission(status, ...rest) {
    if (letIn(this, rest)) this.once('finish', crash)
    return writeHead.call(this, status, ...rest)
  }
}

/** True when the answer carries the origin's `x-origin-hit` header (set before, or given to writeHead as an object or a raw list). */
function letIn(response, rest) {
  if (response.getHeader('x-origin-hit') !== undefined) return true
  for (const headers of rest) {
    if (Array.isArray(headers)) {
      for (let i = 0; i < headers.length; i += 2) if (String(headers[i]).toLowerCase() === 'x-origin-hit') return true
    } else if (headers && typeof headers === 'object') {
      for (const name of Object.keys(headers)) if (name.toLowerCase() === 'x-origin-hit') return true
    }
  }
  return false
}

function crash() {
  let fd
  try {
    fd = openSync(claim, 'wx')
  } catch {
    return // another process of the group crashed first
  }
  writeSync(fd, String(Date.now()))
  closeSync(fd)
  process.kill(process.pid, 'SIGKILL')
}
