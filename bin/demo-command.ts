/// <reference types="node" />
/**
 * @module
 * `hono-waiting-room demo`: a built-in origin on a free port and the proxy in front of it, with limits so
 * low that a second browser window already waits in the queue.
 */
import { createDemoOrigin } from './demo-origin.ts'
import { flagHelp, type FlagDefaults, type ProxyConfig } from './flags.ts'
import { listen } from './listen.ts'
import { describeRoom, serveUntilSignal, startProxy } from './proxy-command.ts'
import { DEFAULT_ADMIN_PATH } from './admin-mount.ts'

/** 32 URL-safe characters (192 random bits): a bearer token the admin API accepts. */
function randomToken(): string {
  return btoa(String.fromCharCode(...crypto.getRandomValues(new Uint8Array(24)))).replace(/\+/g, '-').replace(/\//g, '_')
}

/** One user at a time, one new user a minute, 1-minute sessions, 5 s check-ins (the shortest allowed). */
export const DEMO_DEFAULTS: FlagDefaults = {
  'total-active-users': 1,
  'new-users-per-minute': 1,
  'session-duration': 1,
  'refresh-interval': 5,
  'room-id': 'demo',
}

/** The demo brings its own origin (which sends no origin commands). */
export const DEMO_EXCLUDED_FLAGS = ['origin', 'store', 'redis', 'origin-commands']

export const DEMO_USAGE = `Usage: hono-waiting-room demo [flags]

Starts a small demo site and the waiting room in front of it. Open the printed address in two
browsers (or one normal and one private window): the second one waits in the queue.

Flags:
${flagHelp(DEMO_EXCLUDED_FLAGS, DEMO_DEFAULTS)}`

export async function runDemo(config: ProxyConfig): Promise<number> {
  const origin = await listen(createDemoOrigin().fetch, 0, '127.0.0.1')
  // Tickets only need to outlive this process: a fresh key, and no warning about a missing secret.
  const secret = config.room.secret ?? `${crypto.randomUUID()}${crypto.randomUUID()}`
  // The dashboard is part of the demo: a fresh admin token unless one is given, printed below.
  const admin = config.admin ?? { token: randomToken(), path: DEFAULT_ADMIN_PATH }
  const demo: ProxyConfig = { ...config, origin: origin.url, room: { ...config.room, secret }, admin }
  let proxy
  try {
    proxy = await startProxy(demo)
  } catch (error) {
    await origin.close()
    throw error
  }
  const shownHost = demo.host === '127.0.0.1' || demo.host === '0.0.0.0' || demo.host === '::' ? 'localhost' : demo.host
  console.log(`Waiting room demo at http://${shownHost}:${proxy.port}`)
  console.log(`  ${describeRoom(demo)}`)
  console.log(`  dashboard at http://${shownHost}:${proxy.port}${admin.path} (admin token ${config.admin ? 'from --admin-token' : admin.token})`)
  console.log(`  demo origin at ${origin.url}; stop with Ctrl+C`)
  const status = await serveUntilSignal(proxy)
  await origin.close()
  return status
}
