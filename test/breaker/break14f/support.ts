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
