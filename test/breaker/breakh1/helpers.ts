/// <reference types="node" />
/** breakh1: a raw origin (node:net, answers as a handler says), the CLI proxy as a real process, raw clients. */
import { spawn, type ChildProcess } from 'node:child_process'
import { createServer, connect, type Server, type Socket } from 'node:net'
import { join } from 'node:path'

export const ROOT = join(import.meta.dirname, '..', '..', '..')
export const CLI = join(ROOT, 'dist', 'bin', 'hono-waiting-room.js')
export const BUN = join(ROOT, 'test', 'runtimes', 'node_modules', '.bin', 'bun')
export const SECRET = 'breakh1-secret-0123456789-abcdefghijklmnop'
export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

export interface RawOrigin { server: Server; port: number; url: string; conns: number; heads: [number, string][]; sockets: Set<Socket>; close(): void }

/** A raw origin: every request head (by connection id) is recorded and answered by `handler`. Request bodies are skipped by Content-Length. */
export function rawOrigin(handler: (socket: Socket, head: string, conn: number) => void): Promise<RawOrigin> {
  const o = { conns: 0, heads: [], sockets: new Set<Socket>() } as unknown as RawOrigin
  o.server = createServer((s) => {
    const id = ++o.conns
    o.sockets.add(s)
    s.on('close', () => o.sockets.delete(s))
    s.on('error', () => {})
    let buf = Buffer.alloc(0)
    s.on('data', (d: Buffer) => {
      buf = Buffer.concat([buf, d])
      for (let e = buf.indexOf('\r\n\r\n'); e !== -1; e = buf.indexOf('\r\n\r\n')) {
        const head = buf.subarray(0, e).toString('latin1')
        const cl = /\r\ncontent-length: *(\d+)/i.exec(head)
        if (cl && buf.length < e + 4 + Number(cl[1])) return
        buf = buf.subarray(e + 4 + (cl ? Number(cl[1]) : 0))
        o.heads.push([id, head])
        handler(s, head, id)
      }
    })
  })
  o.close = () => { o.server.close(); for (const s of o.sockets) s.destroy() }
  return new Promise((r) => o.server.listen(0, '127.0.0.1', () => { o.port = (o.server.address() as { port: number }).port; o.url = `http://127.0.0.1:${o.port}`; r(o) }))
}

export interface Cli { child: ChildProcess; port: number; out: () => string; stop(): void }
const started = new Set<ChildProcess>()
export function stopAll(): void { for (const c of started) try { c.kill('SIGKILL') } catch {} ; started.clear() }

/** The CLI proxy (node, or bun running the same dist) in front of `origin`. */
export function startCli(origin: string, runtime: 'node' | 'bun' = 'node', extra: string[] = []): Promise<Cli> {
  const exe = runtime === 'bun' ? BUN : process.execPath
  return startListening(exe, [CLI, '--origin', origin, '--port', '0', '--secret', SECRET, '--total-active-users', '100000', '--new-users-per-minute', '100000', ...extra])
}

/** A process that prints `listening on http://127.0.0.1:PORT` (the CLI, or another proxy a test writes), stopped by stopAll. */
export function startListening(exe: string, args: string[]): Promise<Cli> {
  const child = spawn(exe, args, {
    stdio: ['ignore', 'pipe', 'pipe'], env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', NODE_PATH: join(ROOT, 'test', 'runtimes', 'node_modules') },
  })
  started.add(child)
  child.once('exit', () => started.delete(child))
  let out = ''
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no start: ${out}`)), 20_000)
    const on = (d: Buffer) => {
      out = (out + d.toString()).slice(-20_000)
      const m = /listening on http:\/\/127\.0\.0\.1:(\d+)/.exec(out)
      if (m) { clearTimeout(timer); resolve({ child, port: Number(m[1]), out: () => out, stop: () => child.kill('SIGKILL') }) }
    }
    child.stdout!.on('data', on)
    child.stderr!.on('data', on)
    child.once('exit', (c) => { clearTimeout(timer); reject(new Error(`exit ${c}: ${out}`)) })
  })
}

/** Raw bytes to a port; everything read until the peer closes or `idleMs` of silence. */
export function raw(port: number, bytes: string | Buffer, idleMs = 400): Promise<string> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1')
    const chunks: Buffer[] = []
    let timer: ReturnType<typeof setTimeout> | undefined
    const done = () => { clearTimeout(timer); socket.destroy(); resolve(Buffer.concat(chunks).toString('latin1')) }
    const arm = () => { clearTimeout(timer); timer = setTimeout(done, idleMs) }
    socket.on('connect', () => { socket.write(bytes); arm() })
    socket.on('data', (c) => { chunks.push(c); arm() })
    socket.on('close', done)
    socket.on('error', done)
  })
}

/**
 * An admitted, remembered ticket (GET /mint, then one use). Waits up to 5 s of silence, not 400 ms: the first request
 * to a CLI just started (keys derived, modules loaded) took longer on a busy CI machine and read as an empty answer
 * (CI: "no ticket: " on bun). Both requests close the connection, so a prompt answer ends the wait at once.
 */
export async function mint(port: number): Promise<string> {
  const a = await raw(port, 'GET /mint HTTP/1.1\r\nHost: shop.example\r\nConnection: close\r\n\r\n', 5_000)
  const m = /set-cookie: __wroom=([^;\r\n]+)/i.exec(a)
  if (!m) throw new Error(`no ticket: ${a}`)
  await raw(port, `GET /warm HTTP/1.1\r\nHost: shop.example\r\nCookie: __wroom=${m[1]}\r\nConnection: close\r\n\r\n`, 5_000)
  return m[1]!
}

/** A request for an admitted user: bodiless (the fast path's own client) or with a 1-byte body (node:http). */
export function admitted(port: number, ticket: string, path: string, opts: { body?: boolean; method?: string; idleMs?: number; extra?: string } = {}): Promise<string> {
  const body = opts.body ? 'Content-Length: 1\r\n' : ''
  return raw(port, `${opts.method ?? 'GET'} ${path} HTTP/1.1\r\nHost: shop.example\r\nCookie: __wroom=${ticket}\r\n${opts.extra ?? ''}${body}Connection: close\r\n\r\n${opts.body ? 'z' : ''}`, opts.idleMs ?? 1500)
}
