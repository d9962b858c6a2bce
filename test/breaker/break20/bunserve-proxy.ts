/**
 * break20: run by Bun (spawned by ./targets.ts): `createProxyApp` + `nodeTransport()` on `Bun.serve`, as
 * adapters/bun-sqlite/proxy-h1.bun.test.ts sets it up, in front of the origin given as argv[2]. Prints the
 * listening line the CLI prints, so tests treat both alike.
 */
import { createProxyApp } from '../../../src/proxy/proxy.ts'
import { nodeTransport } from '../../../src/proxy/node.ts'

/** Run by Bun only: the one part of Bun's API used here (the project's typecheck has no Bun types). */
declare const Bun: { serve(options: { port: number; hostname: string; fetch: (req: Request, srv: unknown) => Response | Promise<Response> }): { port: number } }

const origin = process.argv[2]!
const app = createProxyApp({ origin, transport: nodeTransport(), clientAddress: () => '127.0.0.1', room: { secret: 'break20-secret-0123456789-abcdefghijklmnop', totalActiveUsers: 1e6, newUsersPerMinute: 1e6 } })
const server = Bun.serve({ port: 0, hostname: '127.0.0.1', fetch: (req: Request, srv: unknown) => app.fetch(req, srv as never) })
console.log(`listening on http://127.0.0.1:${server.port}`)
