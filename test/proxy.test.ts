/// <reference types="node" />
/**
 * The reverse proxy end to end over real sockets: a Hono origin and the proxy, each served by
 * @hono/node-server on a loopback port, driven with fetch (and node:http where fetch cannot send a header).
 */
import { createHash, randomBytes } from 'node:crypto'
import { request as httpRequest } from 'node:http'
import { gzipSync } from 'node:zlib'
import { Hono } from 'hono'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { listen, type Listening } from '../bin/listen.ts'
import { closedPort, deferred, serveApp, serveProxy, within } from './proxy-servers.ts'

const sha256 = (bytes: Uint8Array): string => createHash('sha256').update(bytes).digest('hex')

/** What one origin run lets a test observe or hold back. */
const control = {
  uploadStarted: deferred(),
  releaseStream: deferred(),
  releaseSlow: deferred(),
  hangStarted: deferred(),
  hangAborted: deferred(),
}

function createOrigin(originUrl: () => string): Hono {
  const app = new Hono()
  app.all('/echo/*', (c) =>
    c.json({
      method: c.req.method,
      path: new URL(c.req.url).pathname,
      query: new URL(c.req.url).search,
      headers: Object.fromEntries(c.req.raw.headers),
    }),
  )
  app.post('/upload', async (c) => {
    // Hash as chunks arrive, and tell the test when the first one is here (the client is still sending).
    const hash = createHash('sha256')
    let length = 0
    for await (const chunk of c.req.raw.body as unknown as AsyncIterable<Uint8Array>) {
      if (length === 0) control.uploadStarted.resolve()
      hash.update(chunk)
      length += chunk.byteLength
    }
    return c.json({ length, sha256: hash.digest('hex'), contentLength: c.req.header('content-length') ?? null })
  })
  app.get('/stream', () => {
    const body = new ReadableStream<Uint8Array>({
      async start(controller) {
        controller.enqueue(new TextEncoder().encode('first\n'))
        await control.releaseStream.promise
        controller.enqueue(new TextEncoder().encode('second\n'))
        controller.close()
      },
    })
    return new Response(body, { headers: { 'content-type': 'text/plain' } })
  })
  app.get('/broken-stream', () => {
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new TextEncoder().encode('partial'))
        setTimeout(() => controller.error(new Error('origin broke mid-stream')), 20)
      },
    })
    return new Response(body)
  })
  app.get('/cookies', (c) => {
    c.header('Set-Cookie', 'a=1; Path=/', { append: true })
    c.header('Set-Cookie', 'b=2; Path=/; HttpOnly', { append: true })
    c.header('Set-Cookie', 'c=3; Path=/; Max-Age=60', { append: true })
    return c.text('cookies')
  })
  app.get('/redirect-absolute', (c) => c.redirect(`${originUrl()}/echo/target?from=absolute`, 302))
  app.get('/redirect-elsewhere', (c) => c.redirect('https://example.com/away', 301))
  app.get('/gzip', () => {
    const compressed = gzipSync(Buffer.from('hello, compressed world'))
    return new Response(compressed, {
      headers: { 'content-type': 'text/plain', 'content-encoding': 'gzip', 'content-length': String(compressed.byteLength) },
    })
  })
  app.get('/hop', () =>
    new Response('hop', {
      headers: { 'x-kept': 'yes', 'proxy-authenticate': 'Basic', 'keep-alive': 'timeout=99', 'x-hop': 'gone', connection: 'x-hop' },
    }),
  )
  app.get('/hang', (c) => {
    control.hangStarted.resolve()
    c.req.raw.signal.addEventListener('abort', () => control.hangAborted.resolve())
    return new Promise<Response>(() => {}) // answers never; only the abort ends it
  })
  app.get('/status', () => new Response('teapot', { status: 418, headers: { 'x-origin': 'here' } }))
  app.get('/slow', async (c) => {
    await control.releaseSlow.promise
    return c.text('late')
  })
  return app
}

let origin: Listening
let proxy: Listening
const originErrors: unknown[] = []

beforeAll(async () => {
  origin = await serveApp(createOrigin(() => origin.url))
  proxy = await serveProxy({
    origin: origin.url,
    room: { totalActiveUsers: 1000, newUsersPerMinute: 1000 },
    onOriginError: (error) => originErrors.push(error),
  })
})

afterAll(async () => {
  control.releaseStream.resolve()
  control.releaseSlow.resolve()
  await proxy?.close()
  await origin?.close()
})

describe('proxy: requests reach the origin intact', () => {
  it('passes method, path, query and headers, and sets X-Forwarded-*', async () => {
    const response = await fetch(`${proxy.url}/echo/a/b?x=1&y=%20z`, {
      method: 'DELETE',
      headers: { 'x-custom': 'kept', accept: 'application/json', 'x-forwarded-for': '10.0.0.1' },
    })
    expect(response.status).toBe(200)
    const seen = (await response.json()) as { method: string; path: string; query: string; headers: Record<string, string> }
    expect(seen.method).toBe('DELETE')
    expect(seen.path).toBe('/echo/a/b')
    expect(seen.query).toBe('?x=1&y=%20z')
    expect(seen.headers['x-custom']).toBe('kept')
    // No trustProxy: the client's own X-Forwarded-For is replaced by the address the proxy saw.
    expect(seen.headers['x-forwarded-for']).toBe('127.0.0.1')
    expect(seen.headers['x-forwarded-proto']).toBe('http')
    expect(seen.headers['x-forwarded-host']).toBe(new URL(proxy.url).host)
    expect(seen.headers.host).toBe(new URL(origin.url).host)
  })

  it("believes neither a client's X-Forwarded-Proto nor its X-Forwarded-Host without trustProxy", async () => {
    const response = await fetch(`${proxy.url}/echo/tls`, { headers: { 'x-forwarded-proto': 'https', 'x-forwarded-host': 'evil.example' } })
    const seen = (await response.json()) as { headers: Record<string, string> }
    expect(seen.headers['x-forwarded-proto']).toBe('http')
    expect(seen.headers['x-forwarded-host']).toBe(new URL(proxy.url).host)
    // The room did not believe it either: a plain-HTTP client gets no Secure ticket.
    expect(response.headers.getSetCookie().find((cookie) => cookie.startsWith('__wroom='))).not.toContain('Secure')
  })

  it('drops hop-by-hop request headers, including those Connection names', async () => {
    // fetch refuses to send Connection and friends, so this client is node:http.
    const body = await new Promise<string>((resolve, reject) => {
      const request = httpRequest(`${proxy.url}/echo/hop`, {
        headers: {
          connection: 'keep-alive, x-hop-request',
          'x-hop-request': 'must not pass',
          'keep-alive': 'timeout=5',
          'proxy-authorization': 'Basic c2VjcmV0',
          te: 'trailers',
          'x-end-to-end': 'passes',
        },
      })
      request.on('response', (response) => {
        let text = ''
        response.setEncoding('utf8')
        response.on('data', (chunk: string) => (text += chunk))
        response.on('end', () => resolve(text))
      })
      request.on('error', reject)
      request.end()
    })
    const headers = (JSON.parse(body) as { headers: Record<string, string> }).headers
    expect(headers['x-end-to-end']).toBe('passes')
    expect(headers['x-hop-request']).toBeUndefined()
    expect(headers['proxy-authorization']).toBeUndefined()
    expect(headers['keep-alive']).toBeUndefined()
    expect(headers.te).toBeUndefined()
  })

  it('streams a large POST body to the origin while it is still being sent', async () => {
    const chunks = Array.from({ length: 64 }, () => randomBytes(64 * 1024)) // 4 MiB
    const all = Buffer.concat(chunks)
    let sent = 0
    const upload = new ReadableStream<Uint8Array>({
      async pull(controller) {
        if (sent === 1) {
          // A buffering proxy would wait for the whole body before calling the origin: this would then time out.
          await within(control.uploadStarted.promise, 5000, 'origin saw the start of the upload')
        }
        if (sent === chunks.length) return controller.close()
        controller.enqueue(chunks[sent++]!)
      },
    })
    const response = await fetch(`${proxy.url}/upload`, { method: 'POST', body: upload, duplex: 'half' } as RequestInit)
    expect(response.status).toBe(200)
    const result = (await response.json()) as { length: number; sha256: string }
    expect(result.length).toBe(all.byteLength)
    expect(result.sha256).toBe(sha256(all))
  })

  it('passes a body with a Content-Length through unchanged', async () => {
    const body = randomBytes(3 * 1024 * 1024 + 17)
    const response = await fetch(`${proxy.url}/upload`, { method: 'POST', body })
    const result = (await response.json()) as { length: number; sha256: string; contentLength: string | null }
    expect(result).toEqual({ length: body.byteLength, sha256: sha256(body), contentLength: String(body.byteLength) })
  })
})

describe('proxy: responses reach the client intact', () => {
  it('streams the response: the first chunk arrives before the origin has finished', async () => {
    const response = await fetch(`${proxy.url}/stream`)
    const reader = response.body!.getReader()
    const first = await within(reader.read(), 5000, 'first chunk through the proxy')
    expect(new TextDecoder().decode(first.value)).toBe('first\n')
    control.releaseStream.resolve()
    let rest = ''
    for (;;) {
      const { done, value } = await reader.read()
      if (done) break
      rest += new TextDecoder().decode(value)
    }
    expect(rest).toBe('second\n')
  })

  it("keeps every Set-Cookie from the origin next to the waiting room's ticket", async () => {
    const response = await fetch(`${proxy.url}/cookies`)
    const cookies = response.headers.getSetCookie()
    expect(cookies).toContain('a=1; Path=/')
    expect(cookies).toContain('b=2; Path=/; HttpOnly')
    expect(cookies).toContain('c=3; Path=/; Max-Age=60')
    expect(cookies.filter((cookie) => cookie.startsWith('__wroom='))).toHaveLength(1)
    expect(cookies).toHaveLength(4)
    expect(await response.text()).toBe('cookies')
  })

  it('passes status and headers, and drops hop-by-hop response headers', async () => {
    const status = await fetch(`${proxy.url}/status`)
    expect(status.status).toBe(418)
    expect(status.headers.get('x-origin')).toBe('here')
    expect(await status.text()).toBe('teapot')

    const hop = await fetch(`${proxy.url}/hop`)
    expect(hop.headers.get('x-kept')).toBe('yes')
    expect(hop.headers.get('x-hop')).toBeNull()
    expect(hop.headers.get('proxy-authenticate')).toBeNull()
    expect(hop.headers.get('keep-alive')).not.toBe('timeout=99') // the proxy's own server may add its own
  })

  it('does not follow redirects, and points redirects to the origin back at the proxy', async () => {
    const toOrigin = await fetch(`${proxy.url}/redirect-absolute`, { redirect: 'manual' })
    expect(toOrigin.status).toBe(302)
    expect(toOrigin.headers.get('location')).toBe(`${proxy.url}/echo/target?from=absolute`)

    const elsewhere = await fetch(`${proxy.url}/redirect-elsewhere`, { redirect: 'manual' })
    expect(elsewhere.status).toBe(301)
    expect(elsewhere.headers.get('location')).toBe('https://example.com/away')
  })

  it('passes a body the origin compressed through untouched, with its coding headers', async () => {
    const raw = await new Promise<{ headers: Record<string, string | string[] | undefined>; body: Buffer }>((resolve, reject) => {
      // node:http, which (unlike fetch) neither adds Accept-Encoding nor decodes the answer.
      httpRequest(`${proxy.url}/gzip`, { headers: { 'accept-encoding': 'gzip, zstd' } }, (response) => {
        const chunks: Buffer[] = []
        response.on('data', (chunk: Buffer) => chunks.push(chunk))
        response.on('end', () => resolve({ headers: response.headers, body: Buffer.concat(chunks) }))
      })
        .on('error', reject)
        .end()
    })
    expect(raw.headers['content-encoding']).toBe('gzip')
    expect(raw.body.equals(gzipSync(Buffer.from('hello, compressed world')))).toBe(true)
    expect(raw.headers['content-length']).toBe(String(raw.body.byteLength))
  })
})

describe('proxy: a failing origin', () => {
  it('answers 502 "origin unreachable" while the origin is down, and serves again once it is up', async () => {
    const port = await closedPort()
    const downProxy = await serveProxy({ origin: `http://127.0.0.1:${port}`, room: { totalActiveUsers: 1000 } })
    let revived: Listening | undefined
    try {
      const html = await fetch(`${downProxy.url}/page`, { headers: { accept: 'text/html' } })
      expect(html.status).toBe(502)
      expect(html.headers.get('content-type')).toContain('text/html')
      expect(await html.text()).toContain('Origin unreachable')

      const text = await fetch(`${downProxy.url}/api`)
      expect(text.status).toBe(502)
      expect(await text.text()).toBe('origin unreachable (502)\n')

      const app = new Hono().get('*', (c) => c.text('back'))
      revived = await listen(app.fetch, port, '127.0.0.1')
      const again = await fetch(`${downProxy.url}/page`)
      expect(again.status).toBe(200)
      expect(await again.text()).toBe('back')
    } finally {
      await revived?.close()
      await downProxy.close()
    }
  })

  it('answers 504 when the origin sends no headers in time, counting from the end of the upload', async () => {
    const impatient = await serveProxy({ origin: origin.url, room: { totalActiveUsers: 1000 }, originTimeoutMs: 200 })
    try {
      const response = await fetch(`${impatient.url}/slow`)
      expect(response.status).toBe(504)
      expect(await response.text()).toBe('origin timed out (504)\n')

      // An upload slower than the timeout is fine: the clock starts once the origin has the whole request.
      let sent = 0
      const slowUpload = new ReadableStream<Uint8Array>({
        async pull(controller) {
          if (sent++ === 3) return controller.close()
          await new Promise((resolve) => setTimeout(resolve, 100))
          controller.enqueue(new Uint8Array(1024))
        },
      })
      const upload = await fetch(`${impatient.url}/upload`, { method: 'POST', body: slowUpload, duplex: 'half' } as RequestInit)
      expect(upload.status).toBe(200)
      expect(((await upload.json()) as { length: number }).length).toBe(3 * 1024)
    } finally {
      control.releaseSlow.resolve()
      await impatient.close()
    }
  })

  it('cancels the origin request when the client goes away, without blaming the origin', async () => {
    const client = new AbortController()
    const request = fetch(`${proxy.url}/hang`, { signal: client.signal })
    await within(control.hangStarted.promise, 5000, 'origin got the request')
    const errorsBefore = originErrors.length
    client.abort()
    await expect(request).rejects.toThrow()
    await within(control.hangAborted.promise, 5000, 'origin request cancelled')
    expect(originErrors.length).toBe(errorsBefore)
  })

  it('survives an origin that breaks mid-response', async () => {
    const response = await fetch(`${proxy.url}/broken-stream`)
    await expect(response.text()).rejects.toThrow()
    const after = await fetch(`${proxy.url}/status`)
    expect(after.status).toBe(418)
  })
})
