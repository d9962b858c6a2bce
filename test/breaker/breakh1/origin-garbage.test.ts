/// <reference types="node" />
/**
 * breakh1 — was FAILING on be82c08 (fixed: the reader refuses such heads at parse time, src/proxy/origin-validate.ts): origin answers the fast path's own HTTP/1.1 client cannot read.
 * README: "Anything it does not understand is an error (the proxy answers 502), never a guess" and
 * "origin errors give 502/504". The node:http path (a request with a body) answers each of these 502 at once.
 * The bodiless fast path instead (1) waits the whole origin timeout (30 s in the CLI) on an answer with bare-LF
 * line ends and then answers 504, and (2) on a header value holding NUL, a bare CR or a bare LF, resets the
 * client's connection with no answer at all (ServerResponse.writeHead throws inside the head callback after
 * `answered` was set, so the error path destroys the socket instead of writing the 502 page).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { admitted, mint, rawOrigin, startCli, stopAll, type Cli, type RawOrigin } from './helpers.ts'

const REPLIES: Record<string, string> = {
  lf: 'HTTP/1.1 200 OK\nContent-Length: 2\n\nok',
  nul: 'HTTP/1.1 200 OK\r\nX-A: a\x00b\r\nContent-Length: 2\r\n\r\nok',
  cr: 'HTTP/1.1 200 OK\r\nX-A: a\rb\r\nContent-Length: 2\r\n\r\nok',
  lfin: 'HTTP/1.1 200 OK\r\nX-A: a\nX-B: b\r\nContent-Length: 2\r\n\r\nok',
  del: 'HTTP/1.1 200 OK\r\nX-A: a\x7fb\r\nContent-Length: 2\r\n\r\nok',
}

for (const runtime of ['node', 'bun'] as const) {
  describe(`breakh1 origin garbage through the CLI on ${runtime}`, () => {
    let origin: RawOrigin
    let cli: Cli
    let ticket: string
    beforeAll(async () => {
      origin = await rawOrigin((socket, head) => {
        const m = new URL(head.split(' ')[1]!, 'http://x').searchParams.get('m')
        socket.write(m && REPLIES[m] ? REPLIES[m] : 'HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok')
      })
      cli = await startCli(origin.url, runtime)
      ticket = await mint(cli.port)
    }, 30_000)
    afterAll(() => { stopAll(); origin?.close() })

    for (const m of Object.keys(REPLIES)) {
      it(`${m}: the bodiless fast path answers 502 at once, as the node:http path does`, async () => {
        const reference = await admitted(cli.port, ticket, `/x?m=${m}`, { body: true })
        expect(reference.split('\r\n')[0]).toBe('HTTP/1.1 502 Bad Gateway')
        const started = Date.now()
        const fast = await admitted(cli.port, ticket, `/x?m=${m}`, { idleMs: 3000 })
        expect(fast.split('\r\n')[0], `after ${Date.now() - started} ms: ${JSON.stringify(fast.slice(0, 80))}`).toBe('HTTP/1.1 502 Bad Gateway')
      }, 15_000)
    }
  })
}
