/**
 * Run by test/queue-answer-runtimes.test.ts under Bun and Deno (and in the test's own Node process): the queue
 * answer `respondWith` makes off node-server (its headers set on the Response Hono made) against Hono's own way
 * (`c.header()` then `c.body()`), for every combination of the queue page's headers, 0–3 Set-Cookie lines and
 * what another middleware may have put on the context before the room. Prints one JSON line: the answers
 * compared and the first that differed.
 */
import { Hono, type Context } from 'hono'
import { answerThroughContext, respondWith, type Answer } from '../../src/room/pipeline/answer.ts'

/** What runs before the room: nothing, headers of other names, headers of the answer's own names, an answer made. */
export const OUTERS = ['none', 'other', 'same', 'res', 'status'] as const
type Outer = (typeof OUTERS)[number]

function before(c: Context, outer: Outer): void {
  if (outer === 'other') {
    c.header('X-Request-Id', 'r-1')
    c.header('Set-Cookie', 'outer=1; Path=/', { append: true })
  } else if (outer === 'same') {
    c.header('Cache-Control', 'public, max-age=60')
    c.header('Refresh', '1')
    c.header('Content-Type', 'text/plain')
  } else if (outer === 'res') {
    c.res = new Response('earlier', { headers: { 'x-earlier': '1', 'cache-control': 'private' } })
  } else if (outer === 'status') {
    c.status(201)
  }
}

/** Every answer of the queue page's shapes: each optional header present or not, 0–3 cookies, each status. */
export function answers(): Answer[] {
  const out: Answer[] = []
  let n = 0
  for (const status of [200, 202, 429, 503])
    for (const cookies of [0, 1, 3])
      for (let mask = 0; mask < 8; mask++) {
        n++
        out.push({
          status,
          body: n % 2 ? `<p>page ${n} ü 🎟️</p>` : new TextEncoder().encode(`<p>page ${n}</p>`) as Uint8Array<ArrayBuffer>,
          headers: {
            'cache-control': mask & 1 ? 'no-store' : undefined,
            refresh: mask & 2 ? String(n) : undefined,
            'retry-after': mask & 4 ? String(n + 1) : undefined,
            'content-type': n % 3 ? 'text/html; charset=UTF-8' : 'application/json',
            'set-cookie': cookies ? Array.from({ length: cookies }, (_, i) => `__wroom=v${n}-${i}; Max-Age=60; Path=/; HttpOnly; SameSite=Lax`) : undefined,
          },
        })
      }
  return out
}

interface Seen {
  status: number
  headers: [string, string][]
  cookies: string[]
  body: string
}

/** Compares both ways for every answer and outer; the first difference, if any. */
export async function compareAll(): Promise<{ compared: number; differs: null | { answer: number; outer: Outer; context: Seen; respond: Seen } }> {
  const list = answers()
  const app = new Hono().get('/:way/:answer/:outer', (c) => {
    const answer = list[Number(c.req.param('answer'))]!
    before(c, c.req.param('outer') as Outer)
    return c.req.param('way') === 'context' ? answerThroughContext(c, answer) : respondWith(c, answer)
  })
  const seen = async (path: string): Promise<Seen> => {
    const response = await app.request(path)
    return { status: response.status, headers: [...response.headers], cookies: response.headers.getSetCookie(), body: await response.text() }
  }
  let compared = 0
  for (let i = 0; i < list.length; i++)
    for (const outer of OUTERS) {
      const [context, respond] = [await seen(`/context/${i}/${outer}`), await seen(`/respond/${i}/${outer}`)]
      compared++
      if (JSON.stringify(context) !== JSON.stringify(respond)) return { compared, differs: { answer: i, outer, context, respond } }
    }
  return { compared, differs: null }
}

const runtime = (globalThis as { Bun?: unknown }).Bun ? 'bun' : (globalThis as { Deno?: unknown }).Deno ? 'deno' : undefined
if (runtime) console.log(JSON.stringify({ runtime, ...(await compareAll()) }))
