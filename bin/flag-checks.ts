/// <reference types="node" />
/**
 * @module
 * The checks of ./flags.ts that concern more than one flag's text: the shared backend (`--store` or
 * `--redis`), and the proxy's own options (`--trust-proxy`, `--public-host`, `--origin-commands`), whose
 * validators in src/proxy speak of options; here their messages speak of the flag that set them.
 */
import { WaitingRoomError } from '../src/errors.ts'
import { parsePublicHosts } from '../src/proxy/hosts.ts'
import { parseTrustProxy } from '../src/proxy/trust.ts'
import { resolveAdminOptions } from '../src/admin/options.ts'
import { DEFAULT_ADMIN_PATH, type AdminMount } from './admin-mount.ts'
import { shown, UsageError, type FlagValue } from './flag-values.ts'
import { parseRedisUrl, redactUrl } from './redis-store.ts'

/** A value as parsed, where it came from, and as typed (for messages). */
export interface Given {
  value: FlagValue
  source: string
  raw: string
}

/** Commands `--origin-commands` knows; `none` (or nothing) enables none. */
const ORIGIN_COMMANDS = ['revoke']

/** `--origin-commands revoke` (or `none`), checked here so the message speaks of the flag. */
export function originCommands(given: Given): string[] {
  const commands = (given.value as string[]).map((command) => command.toLowerCase())
  if (commands.length === 1 && commands[0] === 'none') return []
  const unknown = commands.filter((command) => !ORIGIN_COMMANDS.includes(command))
  if (unknown.length > 0) {
    throw new UsageError(`invalid ${shown(given.source, given.raw)}: the origin commands the room obeys are ${ORIGIN_COMMANDS.join(', ')} or none; ${unknown.join(', ')} is not one`)
  }
  return [...new Set(commands)]
}

/** A proxy option's validation error, reworded to name the flag that set it. */
function flagError(given: Given, option: string, error: unknown): never {
  if (!(error instanceof WaitingRoomError)) throw error
  const reason = error.message.replace(/^\[hono-waiting-room\] /, '').replace(`invalid option ${option}: `, '')
  throw new UsageError(`invalid ${shown(given.source, given.raw)}: ${reason}`)
}

/** `--trust-proxy 2` (a hop count) or `--trust-proxy 10.0.0.0/8,::1` (ranges), validated as createProxyApp will. */
export function trustProxyOf(given: Given | undefined): number | string[] | undefined {
  if (!given) return undefined
  const text = String(given.value).trim()
  const value = /^[+-]?\d+(\.\d*)?$/.test(text) ? Number(text) : text.split(',').map((part) => part.trim())
  try {
    parseTrustProxy(value)
  } catch (error) {
    flagError(given, 'trustProxy', error)
  }
  return value
}

/** `--public-host`, repeated or comma-separated, validated as createProxyApp will. */
export function publicHostsOf(given: Given | undefined): string[] | undefined {
  if (!given) return undefined
  const hosts = given.value as string[]
  try {
    parsePublicHosts(hosts)
  } catch (error) {
    flagError(given, 'publicHosts', error)
  }
  return hosts.length > 0 ? hosts : undefined
}

/** One shared backend at most, and a Redis URL the client can take (credentials never echoed). */
export function checkBackend(given: Record<string, Given>): void {
  const { store, redis } = given
  if (store && redis) {
    throw new UsageError(
      `${store.source} and ${redis.source} cannot be used together: the room's state lives either in one SQLite file (one host) or in Redis (any hosts). Pick one.`,
    )
  }
  if (redis) {
    const raw = String(redis.value).trim()
    try {
      parseRedisUrl(raw)
    } catch (error) {
      throw new UsageError(`invalid ${redis.source}: ${(error as Error).message}, got ${JSON.stringify(redactUrl(raw))}`)
    }
    redis.value = raw
  }
}

/** A path of plain segments, no trailing slash: what the admin API is mounted at. */
const ADMIN_PATH = /^(?:\/[A-Za-z0-9._~-]+)+$/

/** `--admin-token` (validated as waitingRoomAdmin will, never echoed) and `--admin-path`; none without a token. */
export function adminOf(token: Given | undefined, path: Given | undefined): AdminMount | undefined {
  if (!token) {
    if (path) throw new UsageError(`${path.source} needs --admin-token (or WR_ADMIN_TOKEN): the admin API is only served with a token`)
    return undefined
  }
  const value = String(token.value)
  try {
    resolveAdminOptions({ token: value })
  } catch (error) {
    if (!(error instanceof WaitingRoomError)) throw error
    const reason = error.message.replace(/^.*invalid option token: /, '')
    throw new UsageError(`invalid ${token.source}: ${reason} (the value is not shown)`)
  }
  const where = path ? String(path.value) : DEFAULT_ADMIN_PATH
  if (!ADMIN_PATH.test(where) || /\/\.\.?(?:\/|$)/.test(where)) {
    throw new UsageError(`invalid ${shown(path!.source, path!.raw)}: a path of plain segments such as /_room (letters, digits, - . _ ~; no trailing slash)`)
  }
  return { token: value, path: where }
}
