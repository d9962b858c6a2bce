/** break14f helpers: raw HTTP/1.1 over a socket, a WebSocket handshake's headers, a free loopback port. */
import net from 'node:net'

/** Sends `text` (latin1) to 127.0.0.1:`port` and resolves with everything read until close or `waitMs`. */
export function raw(port: number, text: string, waitMs = 1500): Promise<string> {
  return new Promise((resolve) => {
    const s = net.connect(port, '127.0.0.1')
    let out = ''
    const timer = setTimeout(() => { s.destroy(); resolve(out) }, waitMs)
    s.on('data', (d) => (out += d.toString('latin1')))
    s.on('error', () => { clearTimeout(timer); resolve(out) })
    s.on('close', () => { clearTimeout(timer); resolve(out) })
    s.write(Buffer.from(text, 'latin1'))
  })
}

/** The header lines of a WebSocket upgrade request. */
export const UPGRADE = 'Connection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n'

export const freePort = () => new Promise<number>((resolve) => { const s = net.createServer().listen(0, '127.0.0.1', () => { const p = (s.address() as net.AddressInfo).port; s.close(() => resolve(p)) }) })

/** A redis-server of the test's own on a free loopback port (no persistence), with `args` (e.g. maxmemory settings). */
export async function startRedis(args: string[]): Promise<{ port: number; proc: import('node:child_process').ChildProcess }> {
  const { spawn } = await import('node:child_process')
  const port = await freePort()
  const proc = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', ...args], { stdio: 'ignore' })
  for (let i = 0; i < 50; i++) {
    const up = await new Promise<boolean>((resolve) => {
      const s = net.connect(port, '127.0.0.1', () => { s.destroy(); resolve(true) })
      s.on('error', () => resolve(false))
    })
    if (up) return { port, proc }
    await new Promise((r) => setTimeout(r, 100))
  }
  throw new Error('redis-server did not start')
}

/** Every maxmemory-policy Redis knows: all but noeviction may evict a room's keys once maxmemory is reached. */
export const EVICTING_POLICIES = ['volatile-lru', 'volatile-lfu', 'volatile-ttl', 'volatile-random', 'allkeys-lru', 'allkeys-lfu', 'allkeys-random']
