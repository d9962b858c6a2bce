/**
 * @module
 * The facts a bypass rule looks at, read from the request once. The client's address comes from, in order:
 * the `clientIp` option; the reverse proxy's conclusion under its trust policy; `CF-Connecting-IP` on
 * Cloudflare Workers (where the edge sets it, `request.cf` present); the socket's peer on Node
 * (`@hono/node-server`), Bun (`server.requestIP`) or Deno (`info.remoteAddr`). The country: the `clientCountry`
 * option, else `request.cf.country`, else the `CF-IPCountry` header (set by Cloudflare in front of an origin;
 * a client that can reach the origin directly can forge it). Unknown facts make tests on them unknown.
 */
import type { Context } from 'hono'
import { pathHazard, rawPathOf } from '../room/coverage.ts'
import { addressOf, type RequestFacts } from './evaluate.ts'

export interface FactSources {
  clientIp?: ((c: Context) => string | undefined) | undefined
  clientCountry?: ((c: Context) => string | undefined) | undefined
}

type PlatformEnv = {
  incoming?: { socket?: { remoteAddress?: string } }
  requestIP?: (request: Request) => { address?: string } | null
  remoteAddr?: { hostname?: string }
}

/** The client's address as the platform tells it, or undefined. */
export function platformAddress(c: Context): string | undefined {
  const forwarded = (c.get as (key: string) => { clientAddress?: string } | undefined)('forwarded')
  if (forwarded && typeof forwarded === 'object') return forwarded.clientAddress
  if ((c.req.raw as { cf?: unknown }).cf) return c.req.header('cf-connecting-ip') ?? undefined
  const env = c.env as PlatformEnv | undefined
  if (!env || typeof env !== 'object') return undefined
  if (env.incoming?.socket?.remoteAddress) return env.incoming.socket.remoteAddress
  if (typeof env.requestIP === 'function') return env.requestIP(c.req.raw)?.address ?? undefined
  return env.remoteAddr?.hostname
}

/** The country as the platform tells it: `request.cf.country`, else `CF-IPCountry`; `XX` (unknown) and `T1` (Tor) are no country. */
export function platformCountry(c: Context): string | undefined {
  const value = (c.req.raw as { cf?: { country?: string } }).cf?.country ?? c.req.header('cf-ipcountry')
  const country = value?.trim().toUpperCase()
  return country && /^[A-Z]{2}$/.test(country) && country !== 'XX' && country !== 'T1' ? country : undefined
}

export function factsOf(c: Context, sources: FactSources): RequestFacts {
  const raw = rawPathOf(c.req.url)
  const country = sources.clientCountry ? sources.clientCountry(c)?.toUpperCase() : platformCountry(c)
  return {
    ip: addressOf(sources.clientIp ? sources.clientIp(c) : platformAddress(c)),
    country,
    method: c.req.method.toUpperCase(),
    // A path servers may read differently is unknown to a rule (coverage.ts): it never decides a bypass.
    path: pathHazard(raw) === undefined ? c.req.path : undefined,
    query: (name) => c.req.query(name),
    header: (name) => c.req.header(name) ?? undefined,
  }
}
