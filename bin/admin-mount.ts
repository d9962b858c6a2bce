/// <reference types="node" />
/**
 * @module
 * `--admin-token`: the admin API and its dashboard in front of the proxy, at `--admin-path` (default `/_room`).
 * They are answered before the proxy's room and forwarding (so never queued, never sent to the origin),
 * only for the hosts the proxy serves (`--public-host`), and every route but the dashboard page needs the token.
 */
import { Hono, type Context } from 'hono'
import { waitingRoomAdmin } from '../src/admin/admin.ts'
import { parsePublicHosts } from '../src/proxy/hosts.ts'
import type { RoomHandle } from '../src/room/decision.ts'
import { plausibleReadings } from '../src/room/readings.ts'

export interface AdminMount {
  token: string
  /** Where the admin API is served, e.g. `/_room`. */
  path: string
}

export const DEFAULT_ADMIN_PATH = '/_room'

type FetchApp = { fetch: (request: Request, env?: unknown, executionCtx?: never) => Response | Promise<Response>; readonly room: RoomHandle }

function executionCtxOf(c: Context): never | undefined {
  try {
    return c.executionCtx as never
  } catch {
    return undefined // node:http has none
  }
}

/** True when some plausible server reading of the raw path (src/room/readings.ts) is the admin path or under it, in any case. */
export function underAdminPath(rawPath: string, adminPath: string): boolean {
  const base = adminPath.toLowerCase()
  return plausibleReadings(rawPath).some((reading) => {
    const path = reading.toLowerCase()
    return path === base || path.startsWith(`${base}/`)
  })
}

/** The proxy app with the admin API answered first at `admin.path`. */
export function withAdmin(app: FetchApp, admin: AdminMount, publicHosts: readonly string[] | undefined): FetchApp {
  const outer = new Hono()
  const pinned = parsePublicHosts(publicHosts)
  if (pinned) {
    outer.use(`${admin.path}/*`, async (c, next) => {
      const host = c.req.header('host')
      if (!host || !pinned(host)) return c.text(`421 Misdirected Request: this proxy does not serve ${host ?? 'a request without Host'}\n`, 421)
      await next()
    })
  }
  outer.route(admin.path, waitingRoomAdmin(app, { token: admin.token }))
  // Every path under the admin path is the admin's: one it does not have is a 404 here (after its token
  // check), never forwarded — the origin must not see a request, nor the admin token, meant for the admin.
  const notFound = (c: Context) => c.json({ error: 'not_found', message: `no admin endpoint ${c.req.method} ${c.req.path}` }, 404)
  outer.all(admin.path, notFound)
  outer.all(`${admin.path}/*`, notFound)
  // Another spelling of the admin path (`//_room/status`, `/_room%2Fstatus`, `/_ROOM/status`, `/_room;x/…`)
  // that some origin would read as under it: 404 here too, so the origin never gets the admin token with it.
  outer.all('*', (c) => {
    if (underAdminPath(new URL(c.req.url).pathname, admin.path)) return notFound(c)
    return app.fetch(c.req.raw, c.env, executionCtxOf(c))
  })
  return Object.assign(outer, { room: app.room }) as unknown as FetchApp
}
