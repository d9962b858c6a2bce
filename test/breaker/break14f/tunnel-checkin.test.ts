/**
 * #14.7, what an open tunnel does (src/proxy/tunnel-keeper.ts): it holds its place — the proxy checks it in through
 * the room once a minute — and it is closed once the room no longer lets its ticket through. Room of 1, 1-minute
 * sessions, 20x clocks (a minute in 3 s); the origin echoes on its tunnels and revokes on `/logout`.
 * Fails before the fix: the revoked user's tunnel kept echoing (nothing ever looked at it again).
 */
import { createServer, type Server } from 'node:http'
import { connect, type Socket } from 'node:net'
import { afterAll, describe, expect, it } from 'vitest'
import { killAllStarted, sleep, startProxy } from '../break14b/procs.ts'
import { UPGRADE } from './support.ts'

let origin: Server | undefined
afterAll(() => { killAllStarted(); origin?.close() })

async function echoOrigin(): Promise<string> {
  origin?.close()
  origin = createServer((req, res) => {
    req.resume()
    res.writeHead(200, { 'x-origin': 'yes', ...(req.url === '/logout' ? { 'waiting-room-command': 'revoke' } : {}) }).end('ok')
  })
  origin.on('upgrade', (_req, socket) => {
    socket.write('HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n')
    socket.on('data', (d) => socket.write(d))
  })
  await new Promise<void>((r) => origin!.listen(0, '127.0.0.1', r))
  return `http://127.0.0.1:${(origin.address() as any).port}`
}

function openTunnel(port: number, cookie: string): { socket: Socket; read: () => string; closed: () => boolean } {
  const socket = connect(port, '127.0.0.1')
  let got = ''
  let closed = false
  socket.on('data', (d) => (got += d.toString('latin1')))
  socket.on('error', () => {})
  socket.on('close', () => (closed = true))
  socket.write(`GET /ws HTTP/1.1\r\nHost: shop.test\r\nCookie: ${cookie}\r\n${UPGRADE}\r\n`)
  return { socket, read: () => got, closed: () => closed }
}

async function echoes(t: ReturnType<typeof openTunnel>, text: string): Promise<boolean> {
  if (t.closed()) return false
  t.socket.write(text)
  await sleep(300)
  return t.read().includes(text)
}

for (const runtime of ['node', 'bun'] as const) describe(`an open tunnel through the CLI proxy (${runtime})`, () => {
  it('is closed at its next check-in once its ticket is revoked (the user logs out in another tab)', async () => {
    const url = await echoOrigin()
    const env = { B14B_CLOCK_K: '20', B14B_CLOCK_T0: String(Date.now()), B14B_RUNTIME: runtime }
    const proxy = await startProxy(['--origin', url, '--total-active-users', '1', '--new-users-per-minute', '10', '--session-duration', '1', '--origin-commands', 'revoke'], env)
    const first = await fetch(`${proxy.url}/`)
    await first.text()
    const cookie = first.headers.getSetCookie()[0]!.split(';')[0]!
    const tunnel = openTunnel(Number(new URL(proxy.url).port), cookie)
    await sleep(300)
    expect(tunnel.read().split('\r\n')[0]).toBe('HTTP/1.1 101 Switching Protocols')
    expect(await echoes(tunnel, 'ping')).toBe(true)
    // The user logs out in another tab: the next check-in (within a minute: 3 s) closes the tunnel. (Holding its
    // place while open: tunnel-outlives.test.ts.)
    const logout = await fetch(`${proxy.url}/logout`, { headers: { cookie } })
    await logout.text()
    await sleep(4500)
    const alive = await echoes(tunnel, 'after-logout')
    const newcomer = await fetch(`${proxy.url}/`)
    await newcomer.text()
    console.log(`after the revoke: tunnel alive ${alive}, closed ${tunnel.closed()}, newcomer admitted ${newcomer.headers.get('x-origin') === 'yes'}`)
    expect(alive).toBe(false)
    expect(tunnel.closed()).toBe(true)
    tunnel.socket.destroy()
  }, 40_000)
})
