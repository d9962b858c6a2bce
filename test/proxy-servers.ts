/// <reference types="node" />
/**
 * @module
 * Real servers on 127.0.0.1 for the proxy tests: an origin and the proxy, each with @hono/node-server on
 * port 0, and a small cookie jar so a test can act as one browser.
 */
import { request as httpRequest, type IncomingHttpHeaders } from 'node:http'
import type { Hono } from 'hono'
import { listen, type Listening } from '../bin/listen.ts'
import { createProxyApp, type ProxyOptions } from '../src/proxy/proxy.ts'
import { nodeTransport } from '../src/proxy/node.ts'
import { getConnInfo } from '@hono/node-server/conninfo'

export const TEST_SECRET = 'proxy-test-secret-0123456789-abcdefghij'

/** Serves a Hono app on a free loopback port. */
export function serveApp(app: Hono<any>): Promise<Listening> {
  return listen(app.fetch, 0, '127.0.0.1')
}

/** The proxy in front of `origin`, served on a free port of `host` (loopback), as the CLI wires it (node:http transport, upgrades). */
export function serveProxy(options: ProxyOptions, host = '127.0.0.1'): Promise<Listening> {
  const app = createProxyApp({
    clientAddress: (c) => getConnInfo(c).remote.address,
    onOriginError: () => {}, // expected in the origin-down tests; asserted through the response
    transport: nodeTransport(),
    ...options,
    room: { secret: TEST_SECRET, ...options.room },
  })
  return listen(app.fetch, 0, host, { upgrades: true, fastPath: app.fastPath })
}

/** A loopback port nothing listens on: bound once, then released. */
export async function closedPort(): Promise<number> {
  const { createServer } = await import('node:net')
  return new Promise((resolve, reject) => {
    const server = createServer()
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const address = server.address()
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0))
    })
  })
}

/** One browser: keeps the cookies the proxy sets (name → value) and sends them back. */
export class CookieJar {
  readonly cookies = new Map<string, string>()

  header(): string | undefined {
    if (this.cookies.size === 0) return undefined
    return [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; ')
  }

  store(response: Response): void {
    for (const line of response.headers.getSetCookie()) {
      const [pair] = line.split(';')
      const at = pair!.indexOf('=')
      this.cookies.set(pair!.slice(0, at).trim(), pair!.slice(at + 1).trim())
    }
  }

  async fetch(url: string, init: RequestInit = {}): Promise<Response> {
    const headers = new Headers(init.headers)
    const cookie = this.header()
    if (cookie) headers.set('cookie', cookie)
    const response = await fetch(url, { ...init, headers, redirect: 'manual' })
    this.store(response)
    return response
  }
}

/** A promise with its resolve function outside, for a test to release a server at the right moment. */
export function deferred<T = void>(): { promise: Promise<T>; resolve: (value: T) => void } {
  let resolve!: (value: T) => void
  const promise = new Promise<T>((done) => (resolve = done))
  return { promise, resolve }
}

/** Rejects after `ms`: a hung stream fails the test instead of hanging it. */
export function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout>
  return Promise.race([
    promise.finally(() => clearTimeout(timer)),
    new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`${what}: nothing within ${ms} ms`)), ms)
    }),
  ])
}

export interface RawAnswer {
  status: number
  headers: IncomingHttpHeaders
  /** The response headers as received: names as written, in order, repeats kept. */
  rawHeaders: string[]
  body: Buffer
}

/**
 * One request with node:http, which adds and decodes nothing: headers as a name/value list (Host first),
 * the answer's bytes as received.
 */
export function rawRequest(base: string, path: string, headers: string[], method = 'GET'): Promise<RawAnswer> {
  const host = new URL(base).host
  return new Promise((resolve, reject) => {
    const request = httpRequest(`${base}${path}`, { method, headers: ['Host', host, ...headers], agent: false })
    request.on('response', (response) => {
      const chunks: Buffer[] = []
      response.on('data', (chunk: Buffer) => chunks.push(chunk))
      response.on('end', () => resolve({ status: response.statusCode!, headers: response.headers, rawHeaders: response.rawHeaders, body: Buffer.concat(chunks) }))
      response.on('error', reject)
    })
    request.on('error', reject)
    request.end()
  })
}
