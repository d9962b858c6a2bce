/**
 * breaklimits (b), real processes: two CLI proxies sharing a SQLite `--store`, on an accelerated clock (20×).
 * The room (2 places, 1-minute sessions) is full; the database file (with -wal/-shm) is deleted under them.
 * Expected: while the 2 sessions from before keep checking in, no new user is admitted by either process;
 * once they stop and their sessions plus the recovery window have passed, both processes admit again.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { rmSync, mkdtempSync } from 'node:fs'
import { createServer, type Server } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { execFileSync } from 'node:child_process'
import { renameSync } from 'node:fs'
import Database from 'better-sqlite3'
import { afterAll, describe, expect, it } from 'vitest'

const ROOT = join(import.meta.dirname, '../../..')
const K = 20
const SECRET = 'breaklimits-secret-0123456789abcdefghij'
const children: ChildProcess[] = []
let origin: Server
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

afterAll(() => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGTERM')
  origin?.close()
})

async function proxy(backend: string[], originUrl: string, t0: number): Promise<string> {
  const child = spawn(process.execPath, ['--import', join(import.meta.dirname, 'clock-preload.mjs'), join(ROOT, 'dist/bin/hono-waiting-room.js'),
    '--origin', originUrl, '--port', '0', ...backend, '--secret', SECRET, '--total-active-users', '2', '--new-users-per-minute', '100', '--session-duration', '1', '--refresh-interval', '5'], {
    cwd: ROOT, env: { ...process.env, NODE_PATH: join(ROOT, 'test/runtimes/node_modules'), B14B_CLOCK_K: String(K), B14B_CLOCK_T0: String(t0) }, stdio: ['ignore', 'pipe', 'pipe'],
  })
  children.push(child)
  return await new Promise((resolve, reject) => {
    let out = ''
    const on = (d: Buffer) => {
      out += d
      const m = /listening on (http:\/\/[\d.:]+)/.exec(out)
      if (m) resolve(m[1]!)
    }
    child.stdout!.on('data', on)
    child.stderr!.on('data', on)
    child.on('exit', () => reject(new Error(`proxy exited: ${out}`)))
  })
}

async function visit(base: string, cookie?: string): Promise<{ admitted: boolean; cookie: string | undefined }> {
  const res = await fetch(base + '/', { headers: cookie ? { cookie: `__wroom=${cookie}` } : {} })
  const body = await res.text()
  const set = res.headers.get('set-cookie')
  const fresh = set?.startsWith('__wroom=') ? set.slice(8, set.indexOf(';')) : undefined
  return { admitted: body === 'origin', cookie: fresh === '' ? cookie : (fresh ?? cookie) }
}

async function startRedis(port: number): Promise<ChildProcess> {
  const child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: 'ignore' })
  children.push(child)
  for (let i = 0; i < 50; i++) {
    try {
      if (execFileSync('redis-cli', ['-p', String(port), 'ping']).toString().trim() === 'PONG') return child
    } catch {}
    await sleep(100)
  }
  throw new Error('redis did not start')
}

interface Scenario {
  name: string
  setup(dir: string): Promise<{ args: string[]; afterFirst?: () => void; lose: () => Promise<void> }>
}
const REDIS_PORT = 16391 + (process.pid % 500)
const scenarios: Scenario[] = [
  { name: 'SQLite file deleted', setup: async (dir) => {
    const store = join(dir, 'room.db')
    return { args: ['--store', store], lose: async () => { for (const f of ['', '-wal', '-shm']) rmSync(store + f, { force: true }) } }
  } },
  { name: 'SQLite file replaced by an older copy (taken after the first admission)', setup: async (dir) => {
    const store = join(dir, 'room.db')
    const copy = join(dir, 'copy.db')
    return {
      args: ['--store', store],
      afterFirst: () => { const db = new Database(store); db.exec(`VACUUM INTO '${copy}'`); db.close() },
      lose: async () => { rmSync(store + '-wal', { force: true }); rmSync(store + '-shm', { force: true }); renameSync(copy, store) },
    }
  } },
  { name: 'Redis FLUSHALL', setup: async () => {
    await startRedis(REDIS_PORT)
    return { args: ['--redis', `redis://127.0.0.1:${REDIS_PORT}`], lose: async () => void execFileSync('redis-cli', ['-p', String(REDIS_PORT), 'flushall']) }
  } },
  { name: 'Redis restarted without persistence', setup: async () => {
    let server = await startRedis(REDIS_PORT + 1)
    return { args: ['--redis', `redis://127.0.0.1:${REDIS_PORT + 1}`], lose: async () => {
      server.kill('SIGKILL')
      await new Promise((r) => server.once('exit', r))
      server = await startRedis(REDIS_PORT + 1)
    } }
  } },
]

describe('a lost backend under two CLI processes', () => {
  for (const sc of scenarios) it(`${sc.name}: no grant while old sessions live, then the room reopens`, async () => {
    origin ??= createServer((_, res) => res.end('origin'))
    if (!origin.listening) await new Promise<void>((r) => origin.listen(0, '127.0.0.1', r))
    const originUrl = `http://127.0.0.1:${(origin.address() as { port: number }).port}`
    const dir = mkdtempSync(join(tmpdir(), 'breaklimits-'))
    const setup = await sc.setup(dir)
    const t0 = Date.now()
    const [a, b] = await Promise.all([proxy(setup.args, originUrl, t0), proxy(setup.args, originUrl, t0)])
    const old = [await visit(a)]
    await sleep(300)
    setup.afterFirst?.()
    old.push(await visit(b))
    expect(old.map((o) => o.admitted)).toEqual([true, true])
    expect((await visit(a)).admitted).toBe(false) // full
    await sleep(300)
    await setup.lose()
    await sleep(1500) // 30 s simulated: both processes notice the new file
    // The old sessions keep checking in (every 10 s simulated) while new users arrive on both processes.
    let newAdmitted = 0
    for (let i = 0; i < 8; i++) {
      for (const o of old) Object.assign(o, await visit(i % 2 ? a : b, o.cookie))
      if ((await visit(i % 2 ? b : a)).admitted) newAdmitted++
      await sleep(500)
    }
    expect(old.map((o) => o.admitted)).toEqual([true, true])
    expect(newAdmitted).toBe(0)
    // Old users gone: 1 min session + 2 min window (+ the minute) later, both processes admit again.
    await sleep(13_000)
    const reopened = [await visit(a), await visit(b)]
    expect(reopened.map((r) => r.admitted)).toEqual([true, true])
    rmSync(dir, { recursive: true, force: true })
  }, 60_000)
})
