/** break14b: real processes — CLI proxies, a redis-server of our own, an origin that records who it served. */
import { spawn, type ChildProcess } from 'node:child_process'
import { createServer, type IncomingMessage, type Server } from 'node:http'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

export const ROOT = join(import.meta.dirname, '..', '..', '..')
export const CLI = join(ROOT, 'dist', 'bin', 'hono-waiting-room.js')
export const PRELOAD = join(import.meta.dirname, 'clock-preload.mjs')
export const NODE_PATH = join(ROOT, 'test', 'runtimes', 'node_modules')
export const SECRET = 'break14b-secret-0123456789-abcdefghijklmn'
export const ADMIN = 'break14b-admin-token-0123456789'
export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))
export const tmp = () => mkdtempSync(join(tmpdir(), 'b14b-'))

/**
 * The clock a test shares with the proxies it starts: fake time runs K times as fast as real time from T0, and
 * `env` hands the same clock to each proxy through clock-preload.mjs. `until` sleeps in real steps of at most
 * `stepMs` (a coarser step spares the CPU; a finer one lands nearer the fake instant asked for).
 */
/**
 * One request to a CLI proxy as user `user` (the origin answers with `x-origin: yes`): admitted or not, and the
 * cookie to send next (the one set, else the one sent). A request that gets no answer in 8 s counts as not admitted.
 */
export async function userGet(url: string, user: string, cookie = ''): Promise<{ admitted: boolean; cookie: string }> {
  const res = await fetch(`${url}/p`, { headers: { 'x-user': user, ...(cookie ? { cookie } : {}) }, signal: AbortSignal.timeout(8000) }).catch(() => undefined)
  if (!res) return { admitted: false, cookie }
  await res.text()
  const set = res.headers.getSetCookie().map((c) => c.split(';')[0]!).find((c) => c.startsWith('__wroom='))
  return { admitted: res.headers.get('x-origin') === 'yes', cookie: set && set !== '__wroom=' ? set : cookie }
}

export function fakeClock(K: number, stepMs = 50) {
  const T0 = Date.now()
  const now = () => T0 + (Date.now() - T0) * K
  const until = async (t: number) => { while (now() < t) await sleep(Math.max(1, Math.min(stepMs, (t - now()) / K))) }
  const nextMinute = () => (Math.floor(now() / 60_000) + 1) * 60_000
  return { T0, now, until, nextMinute, env: { B14B_CLOCK_K: String(K), B14B_CLOCK_T0: String(T0) } }
}

export interface Proxy { child: ChildProcess; url: string; out: string; exited: Promise<void> }
const started = new Set<ChildProcess>()
export function killAllStarted() {
  for (const c of started) try { c.kill('SIGKILL') } catch {}
  started.clear()
}

export function startProxy(args: string[], env: Record<string, string> = {}, spawnOptions: { uid?: number; gid?: number } = {}): Promise<Proxy> {
  // `B14B_RUNTIME: 'bun'` in env runs the CLI on Bun (the same preload, as --preload).
  const bun = env.B14B_RUNTIME === 'bun'
  const runtime = bun ? join(NODE_PATH, '.bin', 'bun') : process.execPath
  const child = spawn(runtime, [bun ? '--preload' : '--import', PRELOAD, CLI, '--port', '0', '--secret', SECRET, '--admin-token', ADMIN, ...args], {
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', NODE_PATH, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    ...spawnOptions,
  })
  started.add(child)
  const exited = new Promise<void>((r) => child.once('exit', () => { started.delete(child); r() }))
  const proxy: Proxy = { child, url: '', out: '', exited }
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`proxy did not start: ${proxy.out}`)), 30_000)
    const on = (chunk: Buffer) => {
      proxy.out = (proxy.out + chunk.toString()).slice(-20_000)
      const m = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(proxy.out)
      if (m && !proxy.url) { proxy.url = m[1]!; clearTimeout(timer); resolve(proxy) }
    }
    child.stdout!.on('data', on)
    child.stderr!.on('data', on)
    child.once('exit', (code, sig) => { clearTimeout(timer); if (!proxy.url) reject(new Error(`proxy exited ${code} ${sig}: ${proxy.out}`)) })
  })
}

export async function startRedis(port: number): Promise<{ url: string; stop: () => Promise<void>; child: ChildProcess }> {
  const dir = tmp()
  const child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir, '--enable-debug-command', 'local'], { stdio: 'ignore' })
  started.add(child)
  const exited = new Promise<void>((r) => child.once('exit', () => { started.delete(child); r() }))
  for (let i = 0; i < 100; i++) {
    const ok = await new Promise<boolean>((r) => { const p = spawn('redis-cli', ['-p', String(port), 'ping'], { stdio: 'ignore' }); p.on('exit', (c) => r(c === 0)) })
    if (ok) break
    await sleep(50)
  }
  return { url: `redis://127.0.0.1:${port}`, child, stop: async () => { child.kill('SIGKILL'); await exited } }
}

export function redisCli(port: number, ...args: string[]): Promise<string> {
  return new Promise((r) => {
    const p = spawn('redis-cli', ['-p', String(port), ...args], { stdio: ['ignore', 'pipe', 'pipe'] })
    let out = ''
    p.stdout!.on('data', (d) => (out += d))
    p.on('exit', () => r(out.trim()))
  })
}

/** An origin that records, per user (x-user header), the (fake-clock) times it served them; x-revoke answers the command. */
export async function startOrigin(): Promise<{ url: string; server: Server; served: Map<string, number[]>; sent: Map<string, number[]>; lastReq?: IncomingMessage }> {
  const served = new Map<string, number[]>()
  const sent = new Map<string, number[]>()
  const state: any = { served, sent }
  const server = createServer((req, res) => {
    state.lastReq = req
    const user = String(req.headers['x-user'] ?? '')
    if (user) {
      const list = served.get(user) ?? []; list.push(Date.now()); served.set(user, list)
      const s = sent.get(user) ?? []; s.push(Number(req.headers['x-sent'] ?? Number.NaN)); sent.set(user, s)
    }
    const headers: Record<string, string> = { 'content-type': 'text/plain', 'x-origin': 'yes' }
    if (req.headers['x-revoke']) headers['waiting-room-command'] = 'revoke'
    req.resume()
    req.on('end', () => { res.writeHead(200, headers); res.end(`origin ${req.method} ${req.url}`) })
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  state.url = `http://127.0.0.1:${(server.address() as any).port}`
  state.server = server
  return state
}

export async function status(proxy: Proxy): Promise<any> {
  const res = await fetch(`${proxy.url}/_room/status`, { headers: { authorization: `Bearer ${ADMIN}` } })
  return res.json()
}

/** A small deterministic PRNG. */
export function rng(seed: number) {
  let s = seed >>> 0
  return () => { s = (s + 0x6d2b79f5) >>> 0; let t = s; t = Math.imul(t ^ (t >>> 15), t | 1); t ^= t + Math.imul(t ^ (t >>> 7), t | 61); return ((t ^ (t >>> 14)) >>> 0) / 4294967296 }
}
