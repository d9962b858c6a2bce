/// <reference types="node" />
/**
 * @module
 * The origin's answer on the client's side, for the node:http transport (./node.ts): written straight to
 * the client's ServerResponse under @hono/node-server, else handed to the proxy whole (a short body) or as
 * a web stream that pauses the origin's socket while the client is slower.
 */
import type { IncomingMessage, ServerResponse } from 'node:http'
import type { Writable } from 'node:stream'
import { createGunzip, createInflate } from 'node:zlib'
import type { Context } from 'hono'
import { ALREADY_SENT_HEADER } from '../room/execution.ts'
import { rawTransferDecodings, type TransferDecoding } from './transfer-codings.ts'

/** Statuses whose responses have no body. */
export const NULL_BODY = new Set([204, 205, 304])

/**
 * The origin's answer written straight to the client's ServerResponse: status, the header list as built
 * (names as the origin wrote them), and the body piped with Node's own backpressure. No Headers, Response
 * or web stream per request: on Node those cost more CPU than the rest of the proxy's work.
 */
export function answerDirectly(response: IncomingMessage, outgoing: ServerResponse, headers: string[], method: string): void {
  outgoing.writeHead(response.statusCode!, response.statusMessage ?? '', headers)
  if (NULL_BODY.has(response.statusCode!) || method === 'HEAD') {
    response.resume()
    outgoing.end()
    return
  }
  // The origin broke off mid-body: the client must see a broken body, not a short one.
  response.once('close', () => {
    if (!response.complete) breakOff(outgoing)
  })
  const decode = rawTransferDecodings(response.rawHeaders)
  response.pipe(decode ? decodingInto(decode, outgoing) : outgoing)
}

/**
 * Breaks the client's answer off: the connection under it first. Bun's node:http, asked to destroy a
 * ServerResponse whose head has not gone out yet, writes `HTTP/1.1 200 OK\r\nConnection: close\r\n\r\n` —
 * an empty body, complete at close — where the client must see a broken one (Node writes nothing). With
 * its socket gone first, neither writes more: nothing, or the chunks so far without the last one.
 */
export function breakOff(outgoing: Writable & { socket?: { destroy(): void } | null }): void {
  outgoing.socket?.destroy()
  outgoing.destroy()
}

/**
 * Where to write an answer's body that came with transfer codings besides chunked (gzip: ./transfer-codings.ts)
 * for `outgoing` to get it decoded: node:zlib streams piped into it, with Node's backpressure. A body that
 * does not decode breaks the client's body, as an origin breaking off does.
 */
export function decodingInto(decodings: readonly TransferDecoding[], outgoing: Writable): Writable {
  let into: Writable = outgoing
  for (let i = decodings.length - 1; i >= 0; i--) {
    const decoder = decodings[i] === 'gzip' ? createGunzip() : createInflate()
    decoder.once('error', () => breakOff(outgoing))
    decoder.pipe(into)
    into = decoder
  }
  return into
}

/**
 * What @hono/node-server takes as "already written" (its RESPONSE_ALREADY_SENT: this header, no body), built
 * here so the transport needs @hono/node-server only when it runs under it. Reading `body` turns
 * node-server's lightweight Response (when it replaced the global one) into the real one node-server checks.
 */
export function alreadySent(): Response {
  const sent = new Response(null, { headers: { [ALREADY_SENT_HEADER]: 'true' } })
  void sent.body
  return sent
}

/** The client's ServerResponse when @hono/node-server put it in `env` and nothing was written to it yet. */
export function serverResponseOf(c: Context): ServerResponse | undefined {
  const outgoing = (c.env as { outgoing?: ServerResponse } | undefined)?.outgoing
  return outgoing && !outgoing.headersSent && typeof outgoing.writeHead === 'function' ? outgoing : undefined
}

/** The whole body of a short answer, for one write. */
export function readWhole(response: IncomingMessage, done: (bytes: Uint8Array<ArrayBuffer>) => void, fail: (error: unknown) => void): void {
  const chunks: Buffer[] = []
  response.on('data', (chunk: Buffer) => chunks.push(chunk))
  response.once('end', () => done((chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks)) as Uint8Array<ArrayBuffer>))
  response.once('close', () => {
    if (!response.complete) fail(new Error('the origin closed the response before its end'))
  })
}

/** The response body as a web stream, pausing the socket while the client is slower than the origin. */
export function streamOf(response: IncomingMessage): ReadableStream<Uint8Array> {
  let done = false
  // Up to 64 KiB buffered before the origin's socket is paused: one chunk (the default) would pause it after every read.
  const queueing = new ByteLengthQueuingStrategy({ highWaterMark: 64 * 1024 })
  return new ReadableStream<Uint8Array>({
    start(controller) {
      // `done` guards every call: a client that leaves cancels the stream while the origin is still sending.
      response.on('data', (chunk: Uint8Array) => {
        if (done) return
        controller.enqueue(chunk)
        if ((controller.desiredSize ?? 1) <= 0) response.pause()
      })
      response.once('end', () => {
        if (!done) controller.close()
        done = true
      })
      response.once('close', () => {
        // Closed before its end: the origin broke off mid-body. The client must see a broken body, not a short one.
        if (!done) controller.error(new Error('the origin closed the response before its end'))
        done = true
      })
    },
    pull() {
      response.resume()
    },
    cancel(reason) {
      done = true
      response.destroy(reason instanceof Error ? reason : undefined)
    },
  }, queueing)
}

/** A Response the proxy made (its 502/504 page) written to the client's ServerResponse. */
export async function writeResponse(response: Response, outgoing: ServerResponse): Promise<void> {
  const text = await response.text()
  const headers: Record<string, string> = {}
  response.headers.forEach((value, name) => (headers[name] = value))
  outgoing.writeHead(response.status, { ...headers, 'content-length': String(Buffer.byteLength(text)) })
  outgoing.end(text)
}
