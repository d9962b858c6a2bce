/**
 * Request headers read from Node's raw header list under @hono/node-server (no Fetch `Headers` built) are
 * the same values Hono's `c.req.header()` gives, duplicate lines included — over a real socket.
 */
import { connect } from 'node:net'
import { serve } from '@hono/node-server'
import { Hono } from 'hono'
import fc from 'fast-check'
import type { Context } from 'hono'
import { describe, expect, it } from 'vitest'
import { cookieHeaderOf, requestHeaderOf } from '../src/ticket/cookie.ts'

const NAMES = ['accept', 'accept-language', 'x-forwarded-proto', 'x-absent']

/** One raw HTTP/1.1 request with exactly these header lines; resolves with the response body. */
function rawRequest(port: number, lines: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => socket.end(`GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n${lines.map((l) => `${l}\r\n`).join('')}\r\n`))
    let text = ''
    socket.setEncoding('utf8').on('data', (chunk) => (text += chunk))
    socket.on('end', () => resolve(text.slice(text.indexOf('\r\n\r\n') + 4)))
    socket.on('error', reject)
  })
}

describe('requestHeaderOf under @hono/node-server', () => {
  it('equals c.req.header() for single, repeated and absent headers; cookies joined as Node joins them', async () => {
    const app = new Hono().get('/', (c) => {
      const fast = Object.fromEntries(NAMES.map((n) => [n, requestHeaderOf(c, n) ?? null]))
      const cookie = cookieHeaderOf(c) ?? null
      const fetch = Object.fromEntries(NAMES.map((n) => [n, c.req.header(n) ?? null])) // builds the Fetch headers
      return c.json({ fast, fetch, cookie })
    })
    const server = await new Promise<ReturnType<typeof serve>>((resolve) => {
      const s = serve({ fetch: app.fetch, hostname: '127.0.0.1', port: 0 }, () => resolve(s))
    })
    try {
      const port = (server.address() as { port: number }).port
      const cases = [
        ['Accept: text/html', 'Accept-Language: de-CH,de;q=0.9', 'X-Forwarded-Proto: https', 'Cookie: a=1'],
        ['accept: a', 'ACCEPT: b', 'Accept-Language: fr', 'accept-language: en;q=0.5', 'Cookie: a=1', 'cookie: b=2'],
        ['X-Forwarded-Proto: https, http', 'X-Accept: nope'],
      ]
      for (const lines of cases) {
        const { fast, fetch, cookie } = JSON.parse(await rawRequest(port, lines))
        expect(fast).toEqual(fetch)
        const cookies = lines.filter((l) => /^cookie:/i.test(l)).map((l) => l.slice(8))
        expect(cookie).toBe(cookies.length ? cookies.join('; ') : null)
      }
    } finally {
      server.close()
    }
  })

  it('reads the Fetch headers elsewhere', async () => {
    const app = new Hono().get('/', (c) => c.json(Object.fromEntries(NAMES.map((n) => [n, requestHeaderOf(c, n) ?? null]))))
    const response = await app.request('/', { headers: { accept: 'text/html', 'accept-language': 'ja' } })
    expect(await response.json()).toEqual({ accept: 'text/html', 'accept-language': 'ja', 'x-forwarded-proto': null, 'x-absent': null })
  })
})

describe('requestHeaderOf on raw header lists', () => {
  it('finds every line of the name in any letter case, and only those, for generated lists', () => {
    const names = ['cookie', 'accept', 'accept-language', 'x-forwarded-proto', '_x', 'acceptx', 'ccept']
    const casing = (name: string) => fc.array(fc.boolean(), { minLength: name.length, maxLength: name.length }).map((upper) => [...name].map((ch, i) => (upper[i] ? ch.toUpperCase() : ch)).join(''))
    const line = fc.constantFrom(...names).chain((name) => fc.tuple(casing(name), fc.string({ maxLength: 8 })))
    fc.assert(
      fc.property(fc.array(line, { maxLength: 12 }), fc.constantFrom(...names), (lines, wanted) => {
        const c = { env: { incoming: { rawHeaders: lines.flat() } }, req: {} } as unknown as Context
        const values = lines.filter(([name]) => name.toLowerCase() === wanted).map(([, value]) => value)
        expect(requestHeaderOf(c, wanted)).toBe(values.length ? values.join(', ') : undefined)
        if (wanted === 'cookie') expect(cookieHeaderOf(c)).toBe(values.length ? values.join('; ') : undefined)
      }),
      { numRuns: 500 },
    )
  })
})
