/**
 * @module
 * Header rewriting for the reverse proxy (`createProxyApp`): what crosses the proxy in each direction.
 * Hop-by-hop headers describe one connection, not the message, so they never cross (RFC 9110 §7.6.1).
 */

/** Hop-by-hop headers a proxy must not forward (RFC 9110 §7.6.1), besides every `proxy-*` header. */
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'transfer-encoding', 'upgrade', 'te', 'trailer', 'trailers'])

/**
 * Content codings every fetch we run on decodes by itself (undici, Deno, Bun, workerd). The origin is
 * only offered these, so a coded response always arrives decoded and its coding headers can be dropped.
 */
const DECODED_CODINGS = new Set(['gzip', 'x-gzip', 'deflate', 'br'])

/** Deletes hop-by-hop headers, including any the Connection header names for this hop. */
export function dropHopByHop(headers: Headers): void {
  const named = headers.get('connection')
  if (named) {
    for (const name of named.split(',')) {
      const trimmed = name.trim().toLowerCase()
      if (trimmed) headers.delete(trimmed)
    }
  }
  // Collect first: deleting while iterating a Headers skips entries.
  const doomed: string[] = []
  for (const name of headers.keys()) {
    if (HOP_BY_HOP.has(name) || name.startsWith('proxy-')) doomed.push(name)
  }
  for (const name of doomed) headers.delete(name)
}

/** What the proxy knows about the client's request, for the X-Forwarded-* headers. */
export interface ForwardedFrom {
  /** The client's address, when the runtime tells it. */
  clientAddress: string | undefined
  /** `http` or `https`: how the client reached us, or what a TLS terminator in front reported. */
  proto: string
  /**
   * The Host the client asked for. Never a client's own X-Forwarded-Host: origins build absolute links
   * from it (password-reset mails), so passing one through would let anyone poison them.
   */
  host: string
}

/** The headers sent to the origin: the client's, minus hop-by-hop, with X-Forwarded-* set. */
export function originRequestHeaders(incoming: Headers, from: ForwardedFrom): Headers {
  const headers = new Headers(incoming)
  dropHopByHop(headers)
  // fetch derives Host from the origin URL; the client's Host travels as X-Forwarded-Host.
  headers.delete('host')
  // Behind another proxy, keep its chain and add the hop we saw (as nginx's $proxy_add_x_forwarded_for).
  if (from.clientAddress) {
    const chain = headers.get('x-forwarded-for')
    headers.set('x-forwarded-for', chain ? `${chain}, ${from.clientAddress}` : from.clientAddress)
  }
  headers.set('x-forwarded-proto', from.proto)
  headers.set('x-forwarded-host', from.host)
  const accepted = offeredCodings(headers.get('accept-encoding'))
  if (accepted) headers.set('accept-encoding', accepted)
  else headers.delete('accept-encoding')
  return headers
}

/**
 * The client's Accept-Encoding narrowed to codings fetch decodes, so the proxy never receives a body it
 * cannot pass on (a zstd body would arrive still coded on some runtimes and decoded on others).
 */
function offeredCodings(acceptEncoding: string | null): string | undefined {
  if (!acceptEncoding) return undefined
  const kept = acceptEncoding
    .split(',')
    .map((part) => part.trim())
    .filter((part) => {
      const coding = part.split(';')[0]!.trim().toLowerCase()
      return coding === 'identity' || coding === '*' || DECODED_CODINGS.has(coding)
    })
  // `*` would let the origin pick any coding: name the ones we decode instead.
  const listed = kept.map((part) => (part.split(';')[0]!.trim() === '*' ? 'gzip, deflate, br' : part))
  return listed.length > 0 ? listed.join(', ') : undefined
}

/**
 * The headers sent back to the client: the origin's, minus hop-by-hop. fetch has already decoded a
 * gzip/deflate/br body, so its Content-Encoding and Content-Length no longer describe what we send.
 * A Location pointing at the origin is rewritten to the proxy, as nginx's `proxy_redirect default` does.
 */
export function clientResponseHeaders(fromOrigin: Headers, originBase: URL, proxyBase: string): Headers {
  const headers = new Headers()
  // Iterating a Headers yields each Set-Cookie on its own; every other header arrives combined once.
  for (const [name, value] of fromOrigin) {
    if (name === 'set-cookie') headers.append(name, value)
    else headers.set(name, value)
  }
  dropHopByHop(headers)
  const coding = headers.get('content-encoding')
  if (coding) {
    const codings = coding.split(',').map((part) => part.trim().toLowerCase()).filter(Boolean)
    if (codings.every((part) => DECODED_CODINGS.has(part) || part === 'identity')) {
      headers.delete('content-encoding')
      headers.delete('content-length')
    }
  }
  const location = headers.get('location')
  if (location) {
    const rewritten = rewriteLocation(location, originBase, proxyBase)
    if (rewritten !== location) headers.set('location', rewritten)
  }
  return headers
}

function rewriteLocation(location: string, originBase: URL, proxyBase: string): string {
  const originPrefix = originBase.origin + originBase.pathname.replace(/\/$/, '')
  if (location !== originPrefix && !location.startsWith(`${originPrefix}/`) && !location.startsWith(`${originPrefix}?`)) {
    return location
  }
  return proxyBase + location.slice(originPrefix.length)
}
