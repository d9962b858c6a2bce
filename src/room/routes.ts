/**
 * @module
 * Routes as Cloudflare has them: a room covers host + path pairs (`routes: [{ host, path }]`), not the cross
 * product of hosts and paths. Each route is scored by how specific it is, so that of several rooms in one app
 * the most specific decides (./registry.ts): a longer path wins (a literal segment counts 2, a segment with `*`
 * 1), then a route naming a host beats one for any host. Paths are judged as in coverage.ts: the router's
 * path, and every plausible server reading of an unusual one (readings.ts: `;params`, `//`, `%2F`, `%5C`,
 * dot segments, trailing `.`/spaces/NUL…) — a room whose route matches any reading ranks as that route, so
 * the most specific plausible room decides. An ambiguous path no reading routes to a room is still covered
 * (fail-closed) by a room with a route for its host, at the lowest specificity.
 */
import type { Context } from 'hono'
import { pathMatcher, rawPathOf, readPath, UNUSUAL, type PathMatcher } from './coverage.ts'
import { MAY_DIFFER, plausibleReadings } from './readings.ts'
import type { RouteInput } from './route-options.ts'
import { WaitingRoomError } from '../errors.ts'
import { hostOption, requestHost } from './hosts.ts'

interface CompiledRoute {
  host: string | undefined
  path: PathMatcher
  score: number
}

/** How specific a path prefix is: 2 per literal segment, 1 per segment with a `*` (`/` is 0). */
export function pathSpecificity(path: string): number {
  const prefix = path.replace(/\/\*$/, '').replace(/\/$/, '')
  if (prefix === '') return 0
  return prefix.slice(1).split('/').reduce((sum, segment) => sum + (segment.includes('*') ? 1 : 2), 0)
}

/** A route's score: path specificity first, then a named host over any host. */
export const routeScore = (route: RouteInput): number => pathSpecificity(route.path ?? '/') * 2 + (route.host ? 1 : 0)

/** The routes `hosts` × `paths` amount to (paths any case, as coverage.ts matches them), for ranking only. */
export function legacyRoutes(hosts: readonly string[] | undefined, paths: readonly string[] | undefined): RouteInput[] {
  const routes: RouteInput[] = []
  for (const host of hosts ?? [undefined]) for (const path of paths ?? ['/']) routes.push({ host, path })
  return routes
}

/**
 * Compiles routes once into `(c) => score | undefined`: the score of the most specific route covering the
 * request, or undefined when none does. Duplicate host + path pairs are refused, as Cloudflare does.
 */
export function routeScorer(routes: readonly RouteInput[], ignoreCase: boolean, field = 'routes', unique = true): (c: Context) => number | undefined {
  const seen = new Set<string>()
  const compiled: CompiledRoute[] = routes.map((route, index) => {
    const host = route.host === undefined ? undefined : hostOption(route.host, `${field}[${index}].host`)
    const path = route.path ?? '/'
    const key = `${host ?? '*'} ${ignoreCase ? path.toLowerCase() : path}`
    if (unique && seen.has(key)) throw new WaitingRoomError('ERR_WR_OPTIONS', `invalid option ${field}[${index}]: the route ${host ?? '(any host)'}${path} is given twice`)
    seen.add(key)
    return { host, path: pathMatcher([path], `${field}[${index}].path`, ignoreCase), score: routeScore(route) }
  })
  // Most specific first: the first route that covers a request is its score.
  compiled.sort((a, b) => b.score - a.score)
  const anyHost = compiled.some((route) => route.host !== undefined)
  return (c) => {
    // Hosts are read only when a route names one: parsing the URL and the Host header on every request cost
    // the admitted path a visible share where no route does (issue 16).
    let urlHost: string | undefined
    let headerHost: string | undefined
    if (anyHost) {
      urlHost = requestHost(new URL(c.req.url).host)
      const header = c.req.header('host')
      headerHost = header === undefined ? undefined : requestHost(header)
    }
    const raw = rawPathOf(c.req.url)
    const routed = c.req.path
    const differs = MAY_DIFFER.test(raw)
    const hazard = UNUSUAL.test(raw) ? readPath(raw).hazard : undefined
    // Only a path that may read differently pays for its readings (readings.ts), and only once.
    let readings: string[] | undefined
    let hostOnly: number | undefined
    for (const route of compiled) {
      // Either host naming a covered one is enough (absolute-form targets, coverage.ts): fail-closed.
      if (route.host !== undefined && route.host !== urlHost && route.host !== headerHost) continue
      if (route.path.raw(raw) || (raw !== routed && route.path.decoded(routed))) return route.score
      if (!differs) continue
      readings ??= plausibleReadings(raw)
      if (readings.some(route.path.decoded)) return route.score
      if (hazard) hostOnly = Math.max(hostOnly ?? 0, route.host ? 1 : 0)
    }
    return hostOnly
  }
}
