/**
 * #14.7 probe (a gap, not a stated guarantee): an admitted user's WebSocket tunnel through the CLI is never
 * checked again. The room counts a user by its session's renewals; a tunnel renews nothing, so once the session
 * ends (here: 1-minute sessions, 20x clocks) the room gives the place to a newcomer while the tunnel keeps using
 * the origin. Measured: room of 1, the tunnel still echoing after 3 minutes, and the newcomer admitted — 2 users
 * on the origin. The test states the origin-protection reading (at most totalActiveUsers users on the origin);
 * closing tunnels at session end, or counting them while open, would make it pass. Left for the lead to judge.
 */
import { createServer, type Server } from 'node:http'
import { connect, type Socket } from 'node:net'
import { afterAll, describe, expect, it } from 'vitest'
import { killAllStarted, sleep, startProxy } from '../break14b/procs.ts'

let origin: Server | undefined
afterAll(() => { killAllStarted(); origin?.close() })

for (const runtime of ['node', 'bun'] as const) describe(`a WebSocket tunnel outlives its session (${runtime})`, () => {
  it('room of 1: the tunnel still works after the session ended, and a newcomer is admitted beside it', async () => {
    origin?.close()
    origin = createServer((req, res) => { req.resume(); res.writeHead(200, { 'x-origin': 'yes' }).end('ok') })
    origin.on('upgrade', (_req, socket) => {
      socket.write('HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n')
      socket.on('data', (d) => socket.write(d))
    })
    await new Promise<void>((r) => origin!.listen(0, '127.0.0.1', r))
    const env = { B14B_CLOCK_K: '20', B14B_CLOCK_T0: String(Date.now()), B14B_RUNTIME: runtime }
    const proxy = await startProxy(['--origin', `http://127.0.0.1:${(origin.address() as any).port}`, '--total-active-users', '1', '--new-users-per-minute', '10', '--session-duration', '1'], env)
    const first = await fetch(`${proxy.url}/`)
    await first.text()
    const cookie = first.headers.getSetCookie()[0]!.split(';')[0]!
    expect(first.headers.get('x-origin')).toBe('yes')
    const port = Number(new URL(proxy.url).port)
    const tunnel: Socket = connect(port, '127.0.0.1')
    let got = ''
    tunnel.on('data', (d) => (got += d.toString('latin1')))
    tunnel.on('error', () => {})
    tunnel.write(`GET /ws HTTP/1.1\r\nHost: shop.test\r\nCookie: ${cookie}\r\nConnection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n`)
    await sleep(300)
    expect(got.split('\r\n')[0]).toBe('HTTP/1.1 101 Switching Protocols')
    // Three (fake) minutes with the tunnel in use and no other request from the first user.
    for (let i = 0; i < 9; i++) { tunnel.write(`ping${i}`); await sleep(1000) }
    const newcomer = await fetch(`${proxy.url}/`)
    await newcomer.text()
    const before = got.length
    tunnel.write('still-there')
    await sleep(300)
    const tunnelAlive = got.slice(before).includes('still-there')
    const newcomerAdmitted = newcomer.headers.get('x-origin') === 'yes'
    console.log(`after 3 minutes: tunnel alive ${tunnelAlive}, newcomer admitted ${newcomerAdmitted} (room of 1)`)
    tunnel.destroy()
    expect(tunnelAlive && newcomerAdmitted).toBe(false)
  }, 40_000)
})
