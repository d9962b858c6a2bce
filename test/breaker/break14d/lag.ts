/** break14d: a TCP relay that delays every answer of a backend (Redis) by `ms` real ms — slow, never failing. */
import { createServer, connect, type Server } from 'node:net'

export async function lagRelay(targetPort: number, lag: { ms: number }): Promise<{ port: number; server: Server }> {
  const server = createServer((client) => {
    const upstream = connect(targetPort, '127.0.0.1')
    client.on('data', (d) => upstream.write(d))
    upstream.on('data', (d) => { if (lag.ms) setTimeout(() => client.writable && client.write(d), lag.ms); else client.write(d) })
    const end = () => { client.destroy(); upstream.destroy() }
    client.on('error', end); upstream.on('error', end); client.on('close', end); upstream.on('close', end)
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  return { port: (server.address() as { port: number }).port, server }
}
