/// <reference types="node" />
/**
 * @module
 * The Node fast path's (./node-fast.ts) forwarding of a bodiless request through the proxy's own HTTP/1.1
 * client (./h1-pool.ts over node:net, ./node-dial.ts): the client's header lines written as one head, the
 * origin's answer written to the client's ServerResponse as the node:http path does (./node-answer.ts
 * `answerDirectly`): its status, header lines rewritten (./fast.ts), body bytes as sent with the client's
 * backpressure; an origin that breaks off mid-body breaks the client's body, one that fails before its
 * head gets the same 502/504 page.
 */
import type { IncomingMessage, ServerResponse } from 'node:http'
import type { Writable } from 'node:stream'
import type { Context } from 'hono'
import { fastClientHeaders, fastOriginHeaders, type FastForward, type ProxyFastPath } from './fast.ts'
import { originFailure } from './failure.ts'
import { EXACT_TRANSPORT, H1Pool, type ExactTransport, type H1Flow } from './h1-pool.ts'
import { requestHead } from './h1-text.ts'
import { breakOff, decodingInto, NULL_BODY, writeResponse } from './node-answer.ts'
import { nodeDial } from './node-dial.ts'
import { bunDial } from './h1-dial.ts'
import { OriginTimeout } from './transport.ts'

/** The fast path's client for this proxy, when its transport forwards exactly and the origin is plain http. */
export function h1PoolOf(fast: ProxyFastPath): H1Pool | undefined {
  const exact = (fast.transport as { [EXACT_TRANSPORT]?: ExactTransport })[EXACT_TRANSPORT]
  const origin = fast.setup.originBase
  if (!exact || origin.protocol !== 'http:') return undefined
  const host = origin.hostname.startsWith('[') ? origin.hostname.slice(1, -1) : origin.hostname
  // Under Bun (the CLI run with bun serves through node-server too), Bun.connect: its node:net costs more.
  return new H1Pool(exact.dial ?? bunDial() ?? nodeDial, host, Number(origin.port || 80), exact.keepAliveMs)
}

export function h1Answer(fast: ProxyFastPath, pool: H1Pool, c: Context, forward: FastForward, incoming: IncomingMessage, outgoing: ServerResponse): void {
  const { setup } = fast
  const method = incoming.method!
  let answered = false
  let finished = false
  // Where the body goes: the client, or a decoder in front of it (transfer codings besides chunked).
  let body: Writable = outgoing
  const flow: H1Flow = pool.request(method, requestHead(method, forward.path, fastOriginHeaders(setup, forward, incoming.rawHeaders)), fast.timeoutMs, {
    head(head) {
      // Answered once the head is written: a head writeHead refuses (it throws, to the pool's error) still gets the 502.
      outgoing.writeHead(head.status, head.statusText, fastClientHeaders(setup, c, forward, head.headers))
      answered = true
      if (NULL_BODY.has(head.status) || method === 'HEAD') {
        finished = true
        outgoing.end()
      } else if (head.decode) {
        body = decodingInto(head.decode, outgoing)
        body.on('drain', () => flow.resume())
      }
    },
    data(bytes) {
      if (!finished && !body.write(bytes)) flow.pause()
    },
    end() {
      if (!finished) body.end()
      finished = true
    },
    error(error) {
      finished = true
      // The origin broke off mid-body: the client must see a broken body, not a short one.
      if (answered || outgoing.destroyed) return void breakOff(outgoing)
      fast.onOriginError(error, c.req.raw)
      const timedOut = error instanceof OriginTimeout
      void writeResponse(originFailure(c, timedOut ? 504 : 502, timedOut ? 'origin timed out' : 'origin unreachable'), outgoing)
    },
  })
  outgoing.on('drain', () => flow.resume())
  // `on`, not `once`: it fires once at most, and a once-wrapper's removal costs per request.
  outgoing.on('close', () => {
    if (!outgoing.writableFinished) flow.abort()
  })
}
