/**
 * @module
 * The proxy's admitted-session fast path, runtime-neutral: for a request a server describes cheaply
 * ({@link FastRequest}), the forwarding guard's conclusions (./trust.ts, ./hosts.ts) and the room's answer
 * (src/room/fast-path.ts) — and either everything the transport needs to forward it, or undefined: then the
 * request goes through the whole proxy app, unchanged. It answers yes only where the app would forward the
 * request with nothing else done: the Host is ours, no upgrade, an admitted user the room lets through on a
 * plain path without writing a cookie. Where the servers call it: `createProxyApp`'s `fetch` (./proxy.ts)
 * and the Node listener (./node-fast.ts), below Hono and @hono/node-server.
 */
import * as hono from 'hono'
import type { Context } from 'hono'
import { admittedPass, type AdmittedPass } from '../room/fast-path.ts'
import { commandsRevoke, revokeSession } from '../room/pipeline/origin-command.ts'
import type { Room } from '../room/room.ts'
import { CF_COMMAND_HEADER, clientResponseHeaderList, COMMAND_HEADER, originRequestHeaders, type HeaderList } from './headers.ts'
import type { HostMatcher } from './hosts.ts'
import type { OriginTransport } from './transport.ts'
import { ownProtoOf, resolveForwarded, type Forwarded, type TrustPolicy } from './trust.ts'

/**
 * Hono's Context class, which hono exports from 4.13 on. Read through the namespace so that an older Hono of
 * the peer range (from 4.11.2) still links: there the fast path stays off and every request goes the whole way.
 */
export const ContextClass: typeof Context | undefined = (hono as { Context?: typeof Context }).Context

/** What the proxy app fixed at build time that the fast path needs. */
export interface FastSetup {
  room: Room
  policy: TrustPolicy
  pinned: HostMatcher | undefined
  originBase: URL
  /** The origin's base path without its trailing slash. */
  originPath: string
  /** `--origin-commands revoke`: the origin's command header is the room's to obey. */
  keepCommand: boolean
  clientAddress: (c: Context) => string | undefined
}

/** What a server needs to run the fast path below the app (the Node listener, ./node-fast.ts). */
export interface ProxyFastPath {
  setup: FastSetup
  transport: OriginTransport
  timeoutMs: number
  onOriginError: (error: unknown, request: Request) => void
}

/** A request as a server sees it before any app runs. */
export interface FastRequest {
  method: string
  /** Path and query as sent (`/a/b?c=1`), starting with `/`. */
  target: string
  /** The Host header; undefined when there is none (the whole path answers that). */
  host: string | undefined
  /** `http` or `https`: the scheme of this server. */
  proto: string
  /** A request header by lower-case name, several lines joined as Fetch joins them (Cookie with `; `). */
  header(name: string): string | undefined
}

/** A yes: where the request goes and what the room and guard concluded. */
export interface FastForward {
  /** Path and query for the origin (its base path first). */
  path: string
  forwarded: Forwarded
  pass: AdmittedPass
}

/**
 * The fast path's answer for `request`. `c` is the request's Context (built by the caller, cheaply): the
 * `clientAddress` option and the room's location take it, as they do on the whole path.
 */
export function fastForward(setup: FastSetup, c: Context, request: FastRequest): FastForward | undefined {
  const { host } = request
  if (host === undefined || request.header('upgrade') !== undefined) return undefined
  const headers = { get: (name: string) => request.header(name) ?? null } as Headers
  const forwarded = resolveForwarded(headers, { peer: setup.clientAddress(c), proto: request.proto, host }, setup.policy)
  // 400 and 421 are the whole path's to answer.
  if (setup.pinned && (!forwarded.host || !setup.pinned(forwarded.host))) return undefined
  const query = request.target.indexOf('?')
  const plain = {
    method: request.method,
    path: query === -1 ? request.target : request.target.slice(0, query),
    cookie: request.header('cookie'),
    authorization: request.header('authorization') !== undefined,
  }
  const pass = admittedPass(setup.room, c, plain, setup.room.o.clock())
  return pass && { path: setup.originPath + request.target, forwarded, pass }
}

/** The origin's request headers for a fast-forwarded request, from the client's raw list. */
export function fastOriginHeaders(setup: FastSetup, forward: FastForward, list: HeaderList): HeaderList {
  return originRequestHeaders(list, forward.forwarded, setup.originBase.host)
}

/**
 * The client's response headers from the origin's raw list, as the whole path writes them: hop-by-hop and
 * command headers gone, Location pointed at the proxy; and a `revoke` command obeyed (the session ends,
 * its cookie is cleared), as the room does after the origin answers.
 */
export function fastClientHeaders(setup: FastSetup, c: Context, forward: FastForward, list: HeaderList): HeaderList {
  const { forwarded, pass } = forward
  const proxyBase = (): string => `${forwarded.proto}://${forwarded.host!}`
  const own = clientResponseHeaderList(list, setup.originBase, proxyBase, setup.keepCommand)
  if (own) return own
  const stripped = clientResponseHeaderList(list, setup.originBase, proxyBase, false)!
  const { room } = setup
  // Read as the whole path reads them (origin-command.ts): either header's token list, Cloudflare's in its mode.
  const revoke = commandsRevoke(valueOf(list, COMMAND_HEADER) ?? null) || (room.o.compatibility === 'cloudflare' && commandsRevoke(valueOf(list, CF_COMMAND_HEADER) ?? null))
  if (revoke) stripped.push('Set-Cookie', revokeSession(room, c, pass.ticketId, pass.countedMinute, pass.now, forwarded.proto === 'https'))
  return stripped
}

const valueOf = (list: HeaderList, name: string): string | undefined => rawHeaderOf(list)(name)

/**
 * A {@link FastRequest} from a Request: its headers read from Node's raw list when the server gave one
 * (`raw`: asking @hono/node-server's Request for Headers builds them for the whole request), else the Fetch
 * Headers (Bun, Deno, Workers: native and cheap there).
 */
export function fetchRequestView(request: Request, url: string, raw: HeaderList | undefined, env?: unknown): FastRequest {
  const slash = url.indexOf('/', url.indexOf('//') + 2)
  const headers = request.headers // once: Bun's getter is not free
  const header = raw ? rawHeaderOf(raw) : (name: string) => headers.get(name) ?? undefined
  return {
    method: request.method,
    target: slash === -1 ? '/' : url.slice(slash),
    host: header('host'),
    proto: ownProtoOf(url, env),
    header,
  }
}

/** A header by lower-case name from a raw list, several lines joined as Fetch does (Cookie with `; `, as the room reads it). */
export function rawHeaderOf(raw: HeaderList): (name: string) => string | undefined {
  return (name) => {
    let value: string | undefined
    for (let i = 0; i + 1 < raw.length; i += 2) {
      const line = raw[i]!
      if (line.length !== name.length || line.toLowerCase() !== name) continue
      value = value === undefined ? raw[i + 1]! : `${value}${name === 'cookie' ? '; ' : ', '}${raw[i + 1]!}`
    }
    return value
  }
}
