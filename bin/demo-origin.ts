/**
 * @module
 * The demo's origin: a tiny site that shows who got in. It counts visitors with its own cookie, which also
 * shows the origin's Set-Cookie arriving next to the waiting room's.
 */
import { Hono } from 'hono'

const VISITOR_COOKIE = 'demo_visitor'

function page(title: string, body: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title}</title>
<style>
  body { font-family: system-ui, sans-serif; max-width: 36rem; margin: 4rem auto; padding: 0 1rem; line-height: 1.5 }
  nav a { margin-right: 1rem }
  .big { font-size: 2.5rem; margin: 0 0 1rem }
</style>
</head>
<body>
${body}
<nav><a href="/">Home</a><a href="/about">About</a><a href="/time">Time (JSON)</a></nav>
</body>
</html>`
}

/** The demo origin app. `now` is the clock shown on the page. */
export function createDemoOrigin(now: () => Date = () => new Date()): Hono {
  let visitors = 0
  const app = new Hono()

  app.get('/', (c) => {
    let number = Number(/(?:^|;\s*)demo_visitor=(\d+)/.exec(c.req.header('cookie') ?? '')?.[1] ?? 0)
    if (!number) {
      number = ++visitors
      c.header('Set-Cookie', `${VISITOR_COOKIE}=${number}; Path=/; HttpOnly; SameSite=Lax`)
    }
    return c.html(
      page(
        "You're in!",
        `<p class="big">You're in!</p>
<p>You are visitor <strong>#${number}</strong> of <strong>${visitors}</strong> let in so far.</p>
<p>Server time: ${now().toLocaleTimeString('en-GB')}</p>
<p>Open this page in another browser (or a private window): with room for one user at a time, it waits
in the queue until your session here ends, a minute or two after your last request.</p>`,
      ),
    )
  })

  app.get('/about', (c) =>
    c.html(
      page(
        'About this demo',
        `<h1>About</h1>
<p>This page is served by a small demo origin. Every request reaches it through
<code>hono-waiting-room</code>, a reverse proxy that queues visitors once the site is full.</p>`,
      ),
    ),
  )

  app.get('/time', (c) => c.json({ time: now().toISOString(), visitors }))
  return app
}
