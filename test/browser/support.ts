/// <reference types="node" />
/**
 * @module
 * The queue page in a real browser: Debian's Chromium driven by playwright-core, rooms behind real servers
 * (@hono/node-server on 127.0.0.1, port 0, over HTTP or HTTPS with a throwaway certificate) with a fake
 * clock, and a log of what every request carried and what the room decided — so a test can assert on
 * the server side what the browser did by itself.
 *
 * Chromium is required: a missing binary fails the suite (it is never skipped).
 */
import { execFileSync } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import type { Server } from 'node:http'
import { createServer as createHttpsServer } from 'node:https'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { serve, type ServerType } from '@hono/node-server'
import { Hono, type MiddlewareHandler } from 'hono'
import { chromium, type Browser, type BrowserContext } from 'playwright-core'
import { waitingRoom, type WaitingRoomEnv, type WaitingRoomOptions } from '../../src/index.ts'

/** The browser: Debian's `chromium` package, or CHROMIUM_PATH. */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium'

/** Headless, and quiet: no background requests leave the machine. */
export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-quic',
  '--no-first-run',
  '--disable-component-update',
  '--disable-sync',
]

/** 2026-11-30 12:00:00 UTC, the start of a minute: where every fake clock starts. */
export const START = Date.UTC(2026, 10, 30, 12, 0, 0)
export const MINUTE = 60_000
export const SECRET = 'browser-test-secret-0123456789-abcdefghij'

/** Screenshots go here (test-results/ is gitignored). */
export const ARTIFACTS = fileURLToPath(new URL('../../test-results/browser/', import.meta.url))

export function artifact(name: string): string {
  mkdirSync(ARTIFACTS, { recursive: true })
  return join(ARTIFACTS, name)
}

/** Fails — never skips — when Chromium is not installed. */
export function requireChromium(): string {
  if (!existsSync(CHROMIUM_PATH)) {
    throw new Error(
      `Chromium not found at ${CHROMIUM_PATH}: the browser tests need it. ` +
        `Install Debian's chromium: apt-get install chromium (or set CHROMIUM_PATH to a Chromium binary).`,
    )
  }
  return CHROMIUM_PATH
}

export function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: requireChromium(), args: CHROMIUM_ARGS })
}

/**
 * A regular (non-incognito) profile whose cookie setting is Google Chrome's shipping default:
 * third-party cookies blocked in Incognito only (`profile.cookie_controls_mode` 2, kIncognitoOnly).
 *
 * Why: `browser.newContext()` is an off-the-record (Incognito-like) profile, where Chromium blocks
 * third-party cookies by default, and a fresh profile of this Chromium build (Debian 156) blocks them
 * too (mode 1, kBlockThirdParty) — checked by hand: a SameSite=None cookie set in a cross-site iframe is
 * neither stored nor sent in either. A default Chrome user allows them outside Incognito, and that is the
 * browser a room embedded in a partner's page meets most. No command-line flag changes this setting
 * (`--disable-features=ThirdPartyStoragePartitioning`, which Playwright already passes, concerns storage,
 * not cookies), so the profile's Preferences file sets it before launch.
 */
export async function launchDefaultUserProfile(
  options: { ignoreHTTPSErrors?: boolean } = {},
): Promise<{ context: BrowserContext; close(): Promise<void> }> {
  const executablePath = requireChromium()
  const dir = mkdtempSync(join(tmpdir(), 'wr-chromium-profile-'))
  mkdirSync(join(dir, 'Default'))
  writeFileSync(join(dir, 'Default', 'Preferences'), JSON.stringify({ profile: { cookie_controls_mode: 2 } }))
  const context = await chromium.launchPersistentContext(dir, { executablePath, args: CHROMIUM_ARGS, ...options })
  return {
    context,
    async close() {
      await context.close()
      rmSync(dir, { recursive: true, force: true })
    },
  }
}

/**
 * A self-signed certificate for `localhost` and 127.0.0.1, valid for a day, made by `openssl` in a temp
 * directory that is removed at once: the key lives only in this process.
 */
export function selfSignedCertificate(): { key: Buffer; cert: Buffer } {
  try {
    execFileSync('openssl', ['version'], { stdio: 'pipe' })
  } catch {
    throw new Error('openssl not found: the HTTPS browser tests generate their certificate with it. Install it: apt-get install openssl')
  }
  const dir = mkdtempSync(join(tmpdir(), 'wr-cert-'))
  try {
    const key = join(dir, 'key.pem')
    const cert = join(dir, 'cert.pem')
    execFileSync(
      'openssl',
      ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-keyout', key, '-out', cert]
        .concat(['-days', '1', '-subj', '/CN=localhost', '-addext', 'subjectAltName=DNS:localhost,IP:127.0.0.1']),
      { stdio: 'pipe' },
    )
    return { key: readFileSync(key), cert: readFileSync(cert) }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

/** One request as the server saw it, and the room's decision. */
export interface Hit {
  method: string
  path: string
  /** Sec-Fetch-Dest: `document` (a page load or refresh), `iframe`, `empty` (fetch from a script)… */
  dest: string | undefined
  /** Sec-Fetch-Site of the request. */
  site: string | undefined
  accept: string | undefined
  /** The Cookie header, as received. */
  cookie: string | undefined
  status: number
  setCookie: string[]
  refreshHeader: string | null
  outcome: string | undefined
  reason: string | undefined
  ticketId: string | undefined
  bucketId: number | undefined
  /** Real time of arrival (performance.now()). */
  at: number
}

/** Whether a hit carried cookie `name`. */
export const sent = (hit: Hit, name = '__wroom'): boolean =>
  (hit.cookie ?? '').split(';').some((part) => part.trim().startsWith(`${name}=`))

/** Logs every request and the room's decision; mount before the room. */
export function hitLog(): { hits: Hit[]; middleware: MiddlewareHandler<WaitingRoomEnv> } {
  const hits: Hit[] = []
  const middleware: MiddlewareHandler<WaitingRoomEnv> = async (c, next) => {
    const at = performance.now()
    await next()
    const decision = c.get('waitingRoom') as WaitingRoomEnv['Variables']['waitingRoom'] | undefined
    hits.push({
      method: c.req.method,
      path: new URL(c.req.url).pathname,
      dest: c.req.header('sec-fetch-dest'),
      site: c.req.header('sec-fetch-site'),
      accept: c.req.header('accept'),
      cookie: c.req.header('cookie'),
      status: c.res.status,
      setCookie: c.res.headers.getSetCookie(),
      refreshHeader: c.res.headers.get('refresh'),
      outcome: decision?.outcome,
      reason: decision?.reason,
      ticketId: decision?.ticketId,
      bucketId: decision?.bucketId,
      at,
    })
  }
  return { hits, middleware }
}

/** The protected site's page: what a user sees once admitted. */
export function originPage(reason: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>The shop</title></head>
<body style="font:1rem system-ui,sans-serif;padding:2rem"><h1>Welcome to the shop</h1>
<p>You are in (the room's decision: <code id="reason">${reason}</code>).</p></body></html>`
}

export interface Served {
  port: number
  /** `http(s)://<host>:<port><path>`; host 127.0.0.1 unless given. */
  url(path?: string, host?: string): string
  close(): Promise<void>
}

/** Serves a Hono app on 127.0.0.1, port 0, over HTTP, or HTTPS when given a key and certificate. */
export function serveApp(app: Hono<any>, tls?: { key: Buffer; cert: Buffer }): Promise<Served> {
  return new Promise((resolve, reject) => {
    let server: ServerType
    const listening = (info: { port: number }) => {
      const scheme = tls ? 'https' : 'http'
      resolve({
        port: info.port,
        url: (path = '/', host = '127.0.0.1') => `${scheme}://${host}:${info.port}${path}`,
        close: () =>
          new Promise<void>((done) => {
            server.close(() => done())
            ;(server as Server).closeAllConnections?.() // the browser keeps connections alive
          }),
      })
    }
    server = tls
      ? serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1', createServer: createHttpsServer, serverOptions: { key: tls.key, cert: tls.cert } }, listening)
      : serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, listening)
    server.once('error', reject)
  })
}

/** The options every browser room shares; a test's own options win. */
export function roomOptions(clock: { now: number }, options: WaitingRoomOptions = {}): WaitingRoomOptions {
  return {
    secret: SECRET,
    clock: () => clock.now,
    // The jitter's low end: the 5 s interval becomes 4 s (5 − 10%, at least 1 s), so each real refresh
    // the suite waits for is as short as the room ever makes it.
    random: () => 0,
    bypass: { paths: ['/favicon.ico'] },
    ...options,
  }
}

export interface RoomServer extends Served {
  app: Hono<WaitingRoomEnv>
  clock: { now: number }
  hits: Hit[]
}

/**
 * One room in front of the whole app, on a real server, with a fake clock starting at {@link START}.
 * `routes` adds the app's own routes (behind the room unless bypassed); everything else answers with
 * {@link originPage}.
 */
export async function startRoom(
  options: WaitingRoomOptions = {},
  routes: (app: Hono<WaitingRoomEnv>) => void = () => {},
  tls?: { key: Buffer; cert: Buffer },
): Promise<RoomServer> {
  const clock = { now: START }
  const { hits, middleware } = hitLog()
  const app = new Hono<WaitingRoomEnv>()
  app.use('*', middleware)
  app.use('*', waitingRoom(roomOptions(clock, options)))
  routes(app)
  app.get('*', (c) => c.html(originPage(c.get('waitingRoom').reason)))
  const served = await serveApp(app, tls)
  return { ...served, app, clock, hits }
}

/** Polls `predicate` until it holds (a short poll: no fixed sleeps), or fails after `timeoutMs`. */
export async function waitUntil(predicate: () => boolean, timeoutMs: number, what: string): Promise<void> {
  const deadline = performance.now() + timeoutMs
  while (!predicate()) {
    if (performance.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 25))
  }
}
