/**
 * @module
 * A queue answer the room builds whole (the queue page with its headers), made without Fetch `Headers` under
 * @hono/node-server when nothing else is on the context. Hono turns every `c.header()` and every answer with
 * more than one header into a `Headers` object, which node-server then copies into a plain record for the
 * socket; a `Response` whose headers are a plain record it writes as it is — 5 µs less per queue page on Node
 * (issue 16). Bun and Deno build their native headers from a `Headers` as fast as from a record (Bun faster:
 * the plain way measured 3 µs slower there), so they keep Hono's `c.body()`, the headers set on the response it
 * makes ({@link answerOnResponse}: cheaper on Deno than in its init). The answer is the same either way —
 * status, headers (names in lower case, in the sorted order a `Headers` lists them), body —
 * test/queue-answer.test.ts compares the two over node-server and through the Web `Response`.
 */
import type { Context } from 'hono'

/** The headers of a queue answer, names in lower case. A value list is one header line per value (Set-Cookie). */
export type AnswerHeaders = Record<string, string | string[] | undefined>

export interface Answer {
  status: number
  headers: AnswerHeaders
  /** Bytes are sent as they are (a kept page: never changed after it is made). */
  body: string | Uint8Array<ArrayBuffer>
}

const NO_HEADERS: Record<string, string> = Object.freeze({}) as Record<string, string>

/**
 * True when an answer made by Hono here would carry nothing but what it is given: no header set earlier on the
 * context (another middleware's `c.header()` before its `next()`, or `c.res` touched) and no answer made yet.
 * Asked through Hono's own public `c.body`, which merges exactly those into what it answers.
 */
export function contextIsBare(c: Context): boolean {
  if (c.finalized) return false
  const probe = c.body(null, undefined, NO_HEADERS)
  // node-server's lightweight Response keeps its init as given ([status, body, headers] under a symbol described
  // `cache`): our own empty record there means Hono merged nothing into it, without building a Headers to ask.
  // Any other shape (another version) answers through the headers as everywhere else.
  for (const key of Object.getOwnPropertySymbols(probe)) {
    const kept = key.description === 'cache' ? (probe as unknown as Record<symbol, unknown>)[key] : undefined
    if (Array.isArray(kept) && kept[2] === NO_HEADERS) return true
  }
  for (const _ of probe.headers) return false
  return true
}

/**
 * Sets each header on the context with `c.header()` (a value list appended line by line), for Hono to answer
 * with. In any order: a `Headers` lists its names sorted.
 */
export function setHeaders(c: Context, headers: AnswerHeaders): void {
  for (const name in headers) {
    const value = headers[name]
    if (value === undefined) continue
    if (typeof value === 'string') c.header(name, value)
    else for (const line of value) c.header(name, line, { append: true })
  }
}

/** Hono's way: the headers through `c.header()`, the body through `c.body()` (which adds what was set before). */
export function answerThroughContext(c: Context, answer: Answer): Response {
  setHeaders(c, answer.headers)
  return c.body(answer.body, answer.status as 200)
}

/**
 * {@link answerThroughContext}'s answer, its headers set on the `Response` Hono made rather than on the context
 * first: Hono answers more than one header through a `Headers` in the `Response`'s init, which Deno converts
 * header by header through WebIDL (3–4 µs of a ~16 µs too-early check-in), where setting them on the response
 * costs a fraction of it; on Bun it is no slower. The same answer: Hono's `Headers` held what the context had
 * (`set` replaces a name, Set-Cookie lines are appended), and so does the response's. Not under node-server,
 * where asking a `Response` for its headers builds them (plainAnswer is its way).
 */
export function answerOnResponse(c: Context, answer: Answer): Response {
  const response = c.body(answer.body, answer.status as 200)
  const { headers } = response
  for (const name in answer.headers) {
    const value = answer.headers[name]
    if (value === undefined) continue
    if (typeof value === 'string') headers.set(name, value)
    else for (const line of value) headers.append(name, line)
  }
  return response
}

/**
 * A `Response` with a plain-record init: one value per name, so at most one Set-Cookie (a record cannot hold
 * two lines of a name for the Web `Response`). Undefined when the answer has more; the caller goes through Hono.
 */
export function plainAnswer(answer: Answer): Response | undefined {
  const headers: Record<string, string> = {}
  for (const name of Object.keys(answer.headers).sort()) {
    const value = answer.headers[name]
    if (value === undefined) continue
    if (typeof value === 'string') headers[name] = value
    else if (value.length === 1) headers[name] = value[0]!
    else if (value.length > 1) return undefined
  }
  return new Response(answer.body, { status: answer.status, headers })
}

/** Under @hono/node-server (its bindings carry the Node request): the one server with a plain-record fast path. */
const onNodeServer = (c: Context): boolean => (c.env as { incoming?: unknown } | undefined)?.incoming !== undefined

/** The answer as a `Response`: a plain one under node-server when the context is bare, else through Hono. */
export function respondWith(c: Context, answer: Answer): Response {
  if (!onNodeServer(c)) return answerOnResponse(c, answer)
  return (contextIsBare(c) && plainAnswer(answer)) || answerThroughContext(c, answer)
}
