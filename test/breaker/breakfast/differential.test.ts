/// <reference types="node" />
/**
 * breakfast's regression probes (they pass): raw requests an attacker with one admitted ticket may send —
 * ambiguous paths, admin spellings, Host tricks, forwarding and command headers, hop-by-hop, smuggling
 * framings, HTTP/1.0, pipelining, upgrades, odd cookies — to two CLI proxies alike but for the fast path.
 * Each must give the same answer and the same origin request on both.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ADMIN_TOKEN, baseConfig, mint, probe, startSide, stopSide, type Side } from './harness.ts'

const H = 'Host: shop.example\r\nCookie: __wroom={T}\r\n'
const C = 'Connection: close\r\n\r\n'
const get = (target: string, extra = '') => `GET ${target} HTTP/1.1\r\n${H}${extra}${C}`
const CASES: Record<string, string> = {
  plain: get('/a'),
  quoteQuery: get("/a?x='y'&z=`\"<>"),
  semicolon: get('/a;x'),
  bracketQuery: get('/a?[x]'),
  adminUpper: get('/_ROOM/status'),
  adminDot: get('/_room./status'),
  adminQuery: get('/_room?x'),
  adminTrailing: get('/_room/'),
  adminDoubleSlash: get('//_room/status'),
  adminDotDot: get('/x/../_room/status'),
  adminEncodedSlash: get('/_room%2fstatus'),
  adminEncodedDot: get('/x/%2e%2e/_room/status'),
  adminBackslash: get('/_room\\status'),
  nul: get('/a%00b'),
  overlong: get('/%c0%ae%c0%ae/_room/status'),
  fragment: get('/a#frag'),
  absoluteForm: get('http://shop.example/a'),
  absoluteFormEvil: get('http://evil.example/_room/status'),
  optionsStar: `OPTIONS * HTTP/1.1\r\n${H}${C}`,
  hostUpper: `GET /a HTTP/1.1\r\nHost: SHOP.example\r\nCookie: __wroom={T}\r\n${C}`,
  hostPort: `GET /a HTTP/1.1\r\nHost: shop.example:80\r\nCookie: __wroom={T}\r\n${C}`,
  hostTrailingDot: `GET /a HTTP/1.1\r\nHost: shop.example.\r\nCookie: __wroom={T}\r\n${C}`,
  hostEvil: `GET /a HTTP/1.1\r\nHost: evil.example\r\nCookie: __wroom={T}\r\n${C}`,
  noHost10: `GET /a HTTP/1.0\r\nCookie: __wroom={T}\r\n\r\n`,
  http10: `GET /a HTTP/1.0\r\n${H}\r\n`,
  http10KeepAlive: `GET /a HTTP/1.0\r\n${H}Connection: keep-alive\r\n\r\n`,
  forwarding: get('/a', 'X-Forwarded-For: 1.2.3.4\r\nX-Forwarded-Host: evil.example\r\nX-Forwarded-Proto: https\r\nForwarded: for=1.1.1.1;host=evil\r\nX-Real-IP: 9.9.9.9\r\nTrue-Client-IP: 8.8.8.8\r\nCF-Connecting-IP: 7.7.7.7\r\n'),
  command: get('/a', 'Waiting-Room-Command: revoke\r\nwaiting-room-command: x\r\nCf-Waiting-Room-Command: revoke\r\n'),
  hopByHop: `GET /a HTTP/1.1\r\n${H}Connection: close, X-Foo, cookie, host\r\nX-Foo: 1\r\nKeep-Alive: 5\r\nTE: trailers\r\nProxy-Connection: x\r\n\r\n`,
  twoCookieLines: `GET /a HTTP/1.1\r\nHost: shop.example\r\nCookie: a=1\r\nCookie: __wroom={T}\r\n${C}`,
  twoTicketsBogusFirst: `GET /a HTTP/1.1\r\nHost: shop.example\r\nCookie: __wroom=bogus; __wroom={T}\r\n${C}`,
  twoTicketsBogusLast: `GET /a HTTP/1.1\r\nHost: shop.example\r\nCookie: __wroom={T}; __wroom=bogus\r\n${C}`,
  cookieSpaces: `GET /a HTTP/1.1\r\nHost: shop.example\r\nCookie:   __wroom = {T} ;x=1\r\n${C}`,
  cookieUpper: `GET /a HTTP/1.1\r\nHost: shop.example\r\nCOOKIE: __WROOM={T}\r\n${C}`,
  cookieQuoted: `GET /a HTTP/1.1\r\nHost: shop.example\r\nCookie: __wroom="{T}"\r\n${C}`,
  cookieComma: `GET /a HTTP/1.1\r\nHost: shop.example\r\nCookie: x=1, __wroom={T}\r\n${C}`,
  cookieTab: `GET /a HTTP/1.1\r\nHost: shop.example\r\nCookie: x=1;\t__wroom={T}\r\n${C}`,
  cookieSuffixName: `GET /a HTTP/1.1\r\nHost: shop.example\r\nCookie: x__wroom=1; __wroom={T}\r\n${C}`,
  websocket: `GET /a HTTP/1.1\r\n${H}Connection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n`,
  postLength: `POST /a HTTP/1.1\r\n${H}Content-Length: 5\r\n${C}hello`,
  postChunked: `POST /a HTTP/1.1\r\n${H}Transfer-Encoding: chunked\r\n${C}5\r\nhello\r\n0\r\n\r\n`,
  teAndCl: `POST /a HTTP/1.1\r\n${H}Transfer-Encoding: chunked\r\nContent-Length: 3\r\n${C}5\r\nhello\r\n0\r\n\r\n`,
  duplicateCl: `POST /a HTTP/1.1\r\n${H}Content-Length: 5\r\nContent-Length: 5\r\n${C}hello`,
  conflictingCl: `POST /a HTTP/1.1\r\n${H}Content-Length: 5\r\nContent-Length: 6\r\n${C}hello!`,
  obsFold: get('/a', 'X-A: 1\r\n  folded\r\n'),
  getWithBody: `GET /a HTTP/1.1\r\n${H}Content-Length: 5\r\n${C}hello`,
  head: `HEAD /a HTTP/1.1\r\n${H}${C}`,
  expectContinue: `POST /a HTTP/1.1\r\n${H}Content-Length: 5\r\nExpect: 100-continue\r\n${C}hello`,
  pipelinedNoTicket: `GET /a HTTP/1.1\r\n${H}\r\nGET /b HTTP/1.1\r\nHost: shop.example\r\n${C}`,
  pipelinedAdmin: `GET /a HTTP/1.1\r\n${H}\r\nGET /_room/status HTTP/1.1\r\nHost: shop.example\r\n${C}`,
  otherAuthorization: get('/a', 'Authorization: Bearer x\r\n'),
  trace: `TRACE /a HTTP/1.1\r\n${H}${C}`,
  connect: `CONNECT shop.example:443 HTTP/1.1\r\n${H}${C}`,
  lowerCaseMethod: `get /a HTTP/1.1\r\n${H}${C}`,
  propfind: `PROPFIND /a HTTP/1.1\r\n${H}${C}`,
}

describe('an admitted ticket on odd requests: fast path on and off answer alike', () => {
  const sides: Side[] = []
  beforeAll(async () => {
    const config = (o: string) => baseConfig(o, { publicHosts: ['shop.example'], admin: { token: ADMIN_TOKEN, path: '/_room' } })
    for (const fast of [true, false]) sides.push(await startSide(fast, config))
    for (const side of sides) await mint(side)
  })
  afterAll(async () => {
    for (const side of sides) await stopSide(side)
  })

  it('the fast path is taken for a plain request (else this proves nothing)', async () => {
    expect((await probe(sides[0]!, get('/a'))).fast).toBe(true)
  })

  it.each(Object.entries(CASES))('%s', async (name, bytes) => {
    const [fast, full] = [await probe(sides[0]!, bytes), await probe(sides[1]!, bytes)]
    expect(fast.answer).toBe(full.answer)
    // One known difference, in the fast path's favour: node:http frames a bodiless request of a method other than
    // GET, HEAD, DELETE, OPTIONS, TRACE or CONNECT as chunked (it stores an array of headers at construction,
    // before any option could stop it); the fast path's own client sends the request as the client did.
    if (name === 'propfind') return expect([fast.origin, full.origin.replace(',"Transfer-Encoding","chunked"]', ']')]).toEqual([full.origin.replace(',"Transfer-Encoding","chunked"]', ']'), fast.origin])
    expect(fast.origin).toBe(full.origin)
  }, 10_000)
})
