/**
 * @module
 * What the proxy says when the origin fails (502, 504), on the whole path (./proxy.ts) and the Node fast
 * path (./node-fast.ts) alike.
 */
import type { Context } from 'hono'

/** The default `onOriginError`: one line naming the request and the cause. */
export function logOriginError(error: unknown, request: Request): void {
  const cause = error instanceof Error && error.cause instanceof Error ? `: ${error.cause.message}` : ''
  const message = error instanceof Error ? error.message : String(error)
  console.error(`[hono-waiting-room] proxy: ${request.method} ${new URL(request.url).pathname} failed: ${message}${cause}`)
}

/** A short answer the user can read, in HTML for browsers and plain text for everything else. */
export function originFailure(c: Context, status: 502 | 504, what: string): Response {
  c.header('Cache-Control', 'no-store')
  c.header('Retry-After', '5')
  if ((c.req.header('accept') ?? '').includes('text/html')) {
    const title = what.charAt(0).toUpperCase() + what.slice(1)
    return c.html(
      `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta http-equiv="refresh" content="10">` +
        `<meta name="viewport" content="width=device-width, initial-scale=1"><title>${title}</title></head>` +
        `<body style="font-family:system-ui,sans-serif;max-width:36rem;margin:4rem auto;padding:0 1rem">` +
        `<h1>${title}</h1><p>The site behind this waiting room is not answering right now (${status}). ` +
        `This page retries in a few seconds.</p></body></html>`,
      status,
    )
  }
  return c.text(`${what} (${status})\n`, status)
}
