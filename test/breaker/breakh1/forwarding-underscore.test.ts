/// <reference types="node" />
/**
 * breakh1 — was FAILING on be82c08 (fixed: isForwardingClaim reads `_` as `-`) (both the fast path's own client and node:http: the header rule is shared).
 * README: without --trust-proxy "a client's forwarding headers ... are replaced by what the proxy sees itself";
 * the rule drops every name under X-Forwarded*, X-Real-*, `-IP` names, ... A client that writes the same names with
 * underscores (`X_Forwarded_For`, `X_Real_IP`, `Client_IP`) gets them to the origin untouched. CGI/WSGI origins
 * fold `-` and `_` to one variable: wsgiref and Werkzeug join both lines into HTTP_X_FORWARDED_FOR as
 * "6.6.6.6,127.0.0.1" (the client's claim first, where apps read the client's address), Rack/PHP-CGI alike.
 * nginx and Apache drop underscore names by default for this reason. Expected: such aliases dropped as their
 * dashed names are (or all underscore names refused), without --trust-proxy.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { admitted, mint, rawOrigin, startCli, stopAll, type Cli, type RawOrigin } from './helpers.ts'

describe('breakh1 forwarding claims spelled with underscores (CLI on Node)', () => {
  let origin: RawOrigin
  let cli: Cli
  let ticket: string
  beforeAll(async () => {
    origin = await rawOrigin((s) => s.write('HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok'))
    cli = await startCli(origin.url)
    ticket = await mint(cli.port)
  }, 30_000)
  afterAll(() => { stopAll(); origin?.close() })

  for (const body of [false, true]) {
    it(`X_Forwarded_For / X_Real_IP / Client_IP never reach the origin (${body ? 'node:http path' : "fast path's own client"})`, async () => {
      const before = origin.heads.length
      const answer = await admitted(cli.port, ticket, '/r', { body, extra: 'X_Forwarded_For: 6.6.6.6\r\nX_Real_IP: 6.6.6.6\r\nClient_IP: 6.6.6.6\r\n' })
      expect(answer.split('\r\n')[0]).toBe('HTTP/1.1 200 OK')
      const head = origin.heads.slice(before).map(([, h]) => h).join('\n')
      expect(head).toContain('X-Forwarded-For: 127.0.0.1')
      expect(head).not.toContain('6.6.6.6')
    }, 15_000)
  }
})
