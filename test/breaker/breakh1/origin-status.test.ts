/// <reference types="node" />
/**
 * breakh1 — origin status codes below 100 through the CLI on Node.
 * Was FAILING on be82c08 (fixed: src/proxy/origin-validate.ts, checked on every path): an origin that answers `HTTP/1.1 099 X` (or `000`) to a request that takes node:http
 * (a new user's first GET through the whole app, or an admitted user's request with a body) kills the proxy
 * process: ServerResponse.writeHead throws ERR_HTTP_INVALID_STATUS_CODE inside the origin response handler
 * (src/proxy/node-answer.ts answerDirectly), uncaught — exit code 1, every user cut off. README: "An origin that
 * is down gets a clear 502, not a crash". On the bodiless fast path a `000` is taken for an interim answer and
 * the client waits the whole origin timeout (30 s) for a 504.
 * The same crash for a reason phrase holding DEL or a control character (writeHead: ERR_INVALID_CHAR in
 * statusMessage), which llhttp accepts; the fast path's own client resets the client with no answer instead.
 * `099` then a real 200: was answered 200 by the fast path (skipped as interim), now 502 as on the node:http path.
 */
import { afterEach, describe, expect, it } from 'vitest'
import { admitted, mint, raw, rawOrigin, sleep, startCli, stopAll, type RawOrigin } from './helpers.ts'

let origin: RawOrigin | undefined
afterEach(() => { stopAll(); origin?.close() })

describe('breakh1 origin status below 100 (CLI on Node)', () => {
  it('a new user whose origin answers status 099: the proxy stays up and answers 502', async () => {
    origin = await rawOrigin((s) => s.write('HTTP/1.1 099 X\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok'))
    const cli = await startCli(origin.url)
    let exit: number | null | undefined
    cli.child.once('exit', (code) => (exit = code))
    const answer = await raw(cli.port, 'GET /new HTTP/1.1\r\nHost: shop.example\r\nConnection: close\r\n\r\n', 2000)
    await sleep(300)
    expect(exit, 'the proxy process exited').toBeUndefined()
    expect(answer.split('\r\n')[0]).toMatch(/^HTTP\/1\.1 (502|200) /)
  }, 20_000)

  it('an admitted request with a body (node:http) answered status 000: the proxy stays up and answers 502', async () => {
    let reply = 'HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok'
    origin = await rawOrigin((s) => s.write(reply))
    const cli = await startCli(origin.url)
    let exit: number | null | undefined
    cli.child.once('exit', (code) => (exit = code))
    const ticket = await mint(cli.port)
    reply = 'HTTP/1.1 000 Zero\r\nContent-Length: 2\r\n\r\nok'
    const answer = await admitted(cli.port, ticket, '/post', { method: 'POST', body: true, idleMs: 2000 })
    await sleep(300)
    expect(exit, 'the proxy process exited').toBeUndefined()
    expect(answer.split('\r\n')[0]).toBe('HTTP/1.1 502 Bad Gateway')
  }, 20_000)

  it('a bodiless admitted GET answered status 000 gets 502 at once, not a 504 after the origin timeout', async () => {
    let reply = 'HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok'
    origin = await rawOrigin((s) => s.write(reply))
    const cli = await startCli(origin.url)
    const ticket = await mint(cli.port)
    reply = 'HTTP/1.1 000 Zero\r\nContent-Length: 2\r\n\r\nok'
    const answer = await admitted(cli.port, ticket, '/get', { idleMs: 3000 })
    expect(answer.split('\r\n')[0]).toBe('HTTP/1.1 502 Bad Gateway')
  }, 20_000)

  for (const [name, line] of [['DEL', 'HTTP/1.1 200 O\x7fK'], ['SOH', 'HTTP/1.1 200 OK\x01']]) {
    it(`a reason phrase holding ${name}: the proxy stays up and answers 502 on both paths`, async () => {
      let reply = 'HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok'
      origin = await rawOrigin((s) => s.write(reply))
      const cli = await startCli(origin.url)
      let exit: number | null | undefined
      cli.child.once('exit', (code) => (exit = code))
      const ticket = await mint(cli.port)
      reply = `${line}\r\nContent-Length: 2\r\n\r\nok`
      const fast = await admitted(cli.port, ticket, '/get', { idleMs: 1500 })
      const piped = await admitted(cli.port, ticket, '/post', { method: 'POST', body: true, idleMs: 1500 })
      await sleep(300)
      expect(exit, 'the proxy process exited').toBeUndefined()
      expect([fast.split('\r\n')[0], piped.split('\r\n')[0]]).toEqual(['HTTP/1.1 502 Bad Gateway', 'HTTP/1.1 502 Bad Gateway'])
    }, 20_000)
  }

  // Was HELD (the reader skipped 099 as interim); now a status outside 100-599 is a 502 on every path, as node:http's gets.
  it('a bodiless admitted GET answered 099 then 200 gets 502 at once, as the node:http path does', async () => {
    let reply = 'HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok'
    origin = await rawOrigin((s) => s.write(reply))
    const cli = await startCli(origin.url)
    const ticket = await mint(cli.port)
    reply = 'HTTP/1.1 099 X\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok'
    const answer = await admitted(cli.port, ticket, '/get')
    expect(answer.split('\r\n')[0]).toBe('HTTP/1.1 502 Bad Gateway')
    const piped = await admitted(cli.port, ticket, '/post', { method: 'POST', body: true })
    expect(piped.split('\r\n')[0]).toBe('HTTP/1.1 502 Bad Gateway')
  }, 20_000)
})
