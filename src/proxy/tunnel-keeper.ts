/// <reference types="node" />
/**
 * @module
 * An open tunnel holds its place in the room (#14.7). The room counts a user by the session's renewals, and a
 * tunnel sends no request after its upgrade: left alone, its session would end while it keeps using the origin,
 * and the room would give its place to a newcomer. So once a minute (the room renews at most once a minute) the
 * proxy sends the tunnel's own upgrade request, with the cookie the last renewal set, through the proxy app as a
 * check-in: the room decides it like any request of the user (renewal, revocation, coverage), and the transport
 * answers a check-in that reaches it without calling the origin ({@link RENEWAL}). A check-in the room does not
 * let through — the ticket revoked, its session ended, the room unable to vouch for it — closes the tunnel.
 */
import type { IncomingMessage } from 'node:http'
import type { Duplex } from 'node:stream'
import { minuteOf } from '../clock.ts'

/** Set in a check-in's env: the transport marks it reached instead of opening an upgrade to the origin. */
export const RENEWAL = Symbol('hono-waiting-room.tunnel-renewal')

export interface RenewalMark {
  /** Set by the transport: the room let the check-in through to where the origin would be called. */
  reached: boolean
}

type FetchHandler = (request: Request, env: Record<string | symbol, unknown>) => Response | Promise<Response>

interface Kept {
  request: Request
  incoming: IncomingMessage
  cookies: Map<string, string>
  /** The minute of the last check-in (or of the upgrade itself). */
  minute: number
  busy: boolean
  close: () => void
}

export interface TunnelKeeper {
  /** Keeps `request`'s tunnel (opened by `response`, whose cookies count) checked in until one of `sockets` closes; `close` ends it. */
  keep(request: Request, incoming: IncomingMessage, response: Response, sockets: Duplex[], close: () => void): void
}

/** `name=value` pairs of a Cookie header, in order. */
function parseCookies(header: string | null): Map<string, string> {
  const cookies = new Map<string, string>()
  for (const part of (header ?? '').split(';')) {
    const eq = part.indexOf('=')
    if (eq > 0) cookies.set(part.slice(0, eq).trim(), part.slice(eq + 1).trim())
  }
  return cookies
}

/** Applies a response's Set-Cookie lines to the jar: a cleared or expired cookie leaves it. */
function applySetCookies(cookies: Map<string, string>, response: Response): void {
  for (const line of response.headers.getSetCookie()) {
    const [pair = '', ...attributes] = line.split(';')
    const eq = pair.indexOf('=')
    if (eq <= 0) continue
    const name = pair.slice(0, eq).trim()
    const value = pair.slice(eq + 1).trim()
    const expired = attributes.some((a) => /^\s*max-age\s*=\s*(0|-\d+)\s*$/i.test(a))
    if (value === '' || expired) cookies.delete(name)
    else cookies.set(name, value)
  }
}

/** The check-in: the tunnel's request with the jar's cookies, and a Node request stand-in whose raw headers say the same. */
function checkIn(kept: Kept): [Request, IncomingMessage] {
  const headers = new Headers(kept.request.headers)
  const cookie = [...kept.cookies].map(([name, value]) => `${name}=${value}`).join('; ')
  if (cookie) headers.set('cookie', cookie)
  else headers.delete('cookie')
  const rawHeaders: string[] = []
  headers.forEach((value, name) => rawHeaders.push(name, value))
  // The peer (socket) stays the tunnel's: conninfo and trusted forwarding judge the same client.
  const incoming = Object.create(kept.incoming, { rawHeaders: { value: rawHeaders }, headers: { value: Object.fromEntries(headers) } }) as IncomingMessage
  return [new Request(kept.request.url, { method: kept.request.method, headers }), incoming]
}

/**
 * A keeper that checks every kept tunnel in through `fetch` in the first `checkEveryMs` of each minute (by
 * Date.now, the clock the room reads). One timer for all tunnels, running only while there are some.
 */
export function tunnelKeeper(fetch: FetchHandler, checkEveryMs = 1000): TunnelKeeper {
  const kept = new Set<Kept>()
  let timer: ReturnType<typeof setInterval> | undefined

  async function renew(entry: Kept, minute: number): Promise<void> {
    entry.busy = true
    const mark: RenewalMark = { reached: false }
    try {
      const [request, incoming] = checkIn(entry)
      const response = await fetch(request, { incoming, outgoing: undefined, [RENEWAL]: mark })
      await response.body?.cancel().catch(() => {})
      if (mark.reached) {
        applySetCookies(entry.cookies, response)
        entry.minute = minute
      }
    } catch {
      mark.reached = false
    }
    entry.busy = false
    if (!mark.reached) entry.close()
  }

  const tick = (): void => {
    const minute = minuteOf(Date.now())
    for (const entry of kept) if (!entry.busy && entry.minute < minute) void renew(entry, minute)
  }

  return {
    keep(request, incoming, response, sockets, close) {
      const entry: Kept = { request, incoming, cookies: parseCookies(request.headers.get('cookie')), minute: minuteOf(Date.now()), busy: false, close }
      applySetCookies(entry.cookies, response)
      kept.add(entry)
      const forget = (): void => {
        kept.delete(entry)
        if (kept.size === 0 && timer) {
          clearInterval(timer)
          timer = undefined
        }
      }
      for (const socket of sockets) socket.once('close', forget)
      if (!timer) {
        timer = setInterval(tick, checkEveryMs)
        timer.unref?.()
      }
    },
  }
}
