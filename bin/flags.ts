/// <reference types="node" />
/**
 * @module
 * The CLI's flags: one table gives each flag its environment variable, default and help line, so
 * `--help`, parsing and error messages never disagree. Room options are validated by the core's own
 * `validateOptions`, and its errors (which name the option) are mapped back to the flag that set it.
 */
import { parseArgs } from 'node:util'
import { WaitingRoomError } from '../src/errors.ts'
import { validateOptions, type WaitingRoomOptions } from '../src/room/options.ts'
import { redactUrl } from './redis-store.ts'

/** A command-line mistake: printed with a pointer to `--help`, exit status 2. */
export class UsageError extends Error {
  override name = 'UsageError'
}

type Kind = 'string' | 'integer' | 'boolean'

interface Flag {
  /** Long name, without `--`. */
  name: string
  /** Environment variables read when the flag is absent, first set wins. */
  env: string[]
  kind: Kind
  /** What the value is, in `--help` (`<url>`, `<n>`); none for booleans. */
  value?: string
  /** Shown in `--help`. */
  defaultText: string
  help: string
  /** The waiting room option this flag sets, if any. */
  option?: keyof WaitingRoomOptions
}

export const FLAGS: readonly Flag[] = [
  { name: 'origin', value: '<url>', env: ['WR_ORIGIN'], kind: 'string', defaultText: '(required)', help: 'base URL of the site behind the room' },
  { name: 'port', value: '<n>', env: ['WR_PORT', 'PORT'], kind: 'integer', defaultText: '8787', help: 'port to listen on (0: any free port)' },
  { name: 'host', value: '<address>', env: ['WR_HOST'], kind: 'string', defaultText: '127.0.0.1', help: 'address to listen on (0.0.0.0: every interface)' },
  { name: 'total-active-users', value: '<n>', env: ['WR_TOTAL_ACTIVE_USERS'], kind: 'integer', defaultText: '200', help: 'users allowed on the site at once', option: 'totalActiveUsers' },
  { name: 'new-users-per-minute', value: '<n>', env: ['WR_NEW_USERS_PER_MINUTE'], kind: 'integer', defaultText: '200', help: 'users allowed to enter in any one minute', option: 'newUsersPerMinute' },
  { name: 'session-duration', value: '<minutes>', env: ['WR_SESSION_DURATION'], kind: 'integer', defaultText: '5', help: 'minutes a user stays active after their last request (1-30)', option: 'sessionDurationMinutes' },
  { name: 'queueing-method', value: '<method>', env: ['WR_QUEUEING_METHOD'], kind: 'string', defaultText: 'fifo', help: 'fifo, random, passthrough or reject', option: 'queueingMethod' },
  { name: 'refresh-interval', value: '<seconds>', env: ['WR_REFRESH_INTERVAL'], kind: 'integer', defaultText: '20', help: 'seconds between a queued user\'s check-ins (5-300)', option: 'refreshIntervalSeconds' },
  { name: 'room-id', value: '<id>', env: ['WR_ROOM_ID'], kind: 'string', defaultText: 'default', help: 'names the room in tickets and shared state', option: 'roomId' },
  { name: 'secret', value: '<key>', env: ['WR_SECRET', 'WAITING_ROOM_SECRET'], kind: 'string', defaultText: 'random per process', help: 'ticket key, 32+ characters; share it across processes', option: 'secret' },
  { name: 'json', env: ['WR_JSON'], kind: 'boolean', defaultText: 'false', help: 'answer Accept: application/json with the queue state as JSON', option: 'jsonResponseEnabled' },
  { name: 'status-code', value: '<code>', env: ['WR_STATUS_CODE'], kind: 'integer', defaultText: '200', help: 'status of the queue page: 200, 202 or 429', option: 'queueingStatusCode' },
  { name: 'store', value: '<path>', env: ['WR_STORE'], kind: 'string', defaultText: 'in memory', help: 'SQLite file shared by several proxy processes on one host (not with --redis)' },
  {
    name: 'redis',
    value: '<url>',
    env: ['WR_REDIS_URL'],
    kind: 'string',
    defaultText: 'none',
    help: 'Redis 6.2+ (redis:// or rediss:// URL) shared by proxy processes on any hosts; needs the redis package (not with --store)',
  },
]

/** What the proxy and demo commands run with. */
export interface ProxyConfig {
  origin: string | undefined
  port: number
  host: string
  store: string | undefined
  /** Redis URL (`--redis`); never set together with `store`. */
  redis: string | undefined
  room: WaitingRoomOptions
}

export interface ParsedFlags {
  help: boolean
  config: ProxyConfig
}

/** Values a command uses when neither a flag nor an environment variable sets them. */
export type FlagDefaults = Partial<Record<string, string | number | boolean>>

/** A value as parsed, where it came from, and as typed (for messages). */
interface Given {
  value: string | number | boolean
  source: string
  raw: string
}

const TRUE = new Set(['1', 'true', 'yes', 'on'])
const FALSE = new Set(['0', 'false', 'no', 'off', ''])

/**
 * Parses `argv` (without the subcommand) over `env`: a flag wins over its environment variable, which
 * wins over `defaults`. Throws {@link UsageError} naming the flag for any mistake, including room
 * options the core rejects.
 */
export function parseFlags(argv: string[], env: Record<string, string | undefined>, defaults: FlagDefaults = {}, exclude: string[] = []): ParsedFlags {
  const flags = FLAGS.filter((flag) => !exclude.includes(flag.name))
  const options: Record<string, { type: 'string' | 'boolean'; short?: string }> = { help: { type: 'boolean', short: 'h' } }
  for (const flag of flags) options[flag.name] = { type: flag.kind === 'boolean' ? 'boolean' : 'string' }
  let values: Record<string, string | boolean | undefined>
  try {
    ;({ values } = parseArgs({ args: argv, options, strict: true, allowPositionals: false }))
  } catch (error) {
    // parseArgs' messages already quote the flag ("Unknown option '--x'"); keep them.
    throw new UsageError(error instanceof Error ? error.message : String(error))
  }

  // Help must work even with a broken environment: nothing else is read.
  if (values.help === true) return { help: true, config: { origin: undefined, port: 8787, host: '127.0.0.1', store: undefined, redis: undefined, room: {} } }

  const given: Record<string, Given> = {}
  for (const flag of flags) {
    const raw = values[flag.name]
    const fromEnv = flag.env.find((name) => env[name] !== undefined && env[name] !== '')
    if (raw !== undefined) given[flag.name] = { value: convert(flag, raw, `--${flag.name}`), source: `--${flag.name}`, raw: String(raw) }
    else if (fromEnv) given[flag.name] = { value: convert(flag, env[fromEnv]!, fromEnv), source: fromEnv, raw: env[fromEnv]! }
    else if (defaults[flag.name] !== undefined) {
      given[flag.name] = { value: defaults[flag.name]!, source: `the ${flag.name} default`, raw: String(defaults[flag.name]) }
    }
  }

  const port = given.port?.value ?? 8787
  if (typeof port !== 'number' || !Number.isInteger(port) || port < 0 || port > 65_535) {
    throw new UsageError(`invalid ${given.port?.source ?? '--port'}: expected a port number 0-65535, got ${given.port?.raw ?? String(port)}`)
  }
  checkBackend(given)
  const room: Record<string, unknown> = {}
  for (const flag of flags) {
    if (flag.option && given[flag.name]) room[flag.option] = given[flag.name]!.value
  }
  checkRoomOptions(room as WaitingRoomOptions, flags, given)
  return {
    help: false,
    config: {
      origin: given.origin?.value as string | undefined,
      port,
      host: (given.host?.value as string | undefined) ?? '127.0.0.1',
      store: given.store?.value as string | undefined,
      redis: given.redis?.value as string | undefined,
      room: room as WaitingRoomOptions,
    },
  }
}

/** One shared backend at most, and a Redis URL the client can take (credentials never echoed). */
function checkBackend(given: Record<string, Given>): void {
  const { store, redis } = given
  if (store && redis) {
    throw new UsageError(
      `${store.source} and ${redis.source} cannot be used together: the room's state lives either in one SQLite file (one host) or in Redis (any hosts). Pick one.`,
    )
  }
  if (redis) {
    const raw = String(redis.value).trim()
    let protocol: string | undefined
    try {
      protocol = new URL(raw).protocol
    } catch {
      protocol = undefined
    }
    if (protocol !== 'redis:' && protocol !== 'rediss:') {
      throw new UsageError(`invalid ${redis.source}: expected a redis:// or rediss:// URL (e.g. redis://127.0.0.1:6379), got ${JSON.stringify(redactUrl(raw))}`)
    }
    redis.value = raw
  }
}

function convert(flag: Flag, raw: string | boolean, source: string): string | number | boolean {
  if (flag.kind === 'boolean') {
    if (typeof raw === 'boolean') return raw
    const text = raw.trim().toLowerCase()
    if (TRUE.has(text)) return true
    if (FALSE.has(text)) return false
    throw new UsageError(`invalid ${source}: expected true or false, got "${raw}"`)
  }
  if (typeof raw === 'boolean') return raw
  // Numbers go to the core's validation as numbers (NaN for junk), so its message names the option.
  if (flag.kind === 'integer') return /^\s*[+-]?\d+(\.\d+)?\s*$/.test(raw) ? Number(raw) : Number.NaN
  return raw
}

/** Runs the core's validation and rewrites its error to also name the flag (and value) that set the field. */
function checkRoomOptions(room: WaitingRoomOptions, flags: readonly Flag[], given: Record<string, Given>): void {
  try {
    validateOptions(room)
  } catch (error) {
    if (!(error instanceof WaitingRoomError) || error.code !== 'ERR_WR_OPTIONS') throw error
    const culprits = flags
      .filter((flag) => flag.option && given[flag.name] && error.message.includes(`${flag.option}:`))
      .map((flag) => {
        const { source, raw } = given[flag.name]!
        // Never echo a secret back to the terminal or a log.
        return flag.option === 'secret' ? `set by ${source}` : `${source}=${raw}`
      })
    const message = error.message.replace(/^\[hono-waiting-room\] /, '')
    throw new UsageError(culprits.length > 0 ? `${message} (${culprits.join(', ')})` : message)
  }
}

/** The flag table as help text, one flag a line with its environment variables and default. */
export function flagHelp(exclude: string[] = [], defaults: FlagDefaults = {}): string {
  const rows = FLAGS.filter((flag) => !exclude.includes(flag.name)).map((flag) => {
    const left = `  --${flag.name}${flag.value ? ` ${flag.value}` : ''}`
    const fallback = defaults[flag.name] !== undefined ? String(defaults[flag.name]) : flag.defaultText
    return { left, right: `${flag.help} [env ${flag.env.join(' or ')}; default ${fallback}]` }
  })
  rows.push({ left: '  -h, --help', right: 'show this help' })
  const width = Math.max(...rows.map((row) => row.left.length)) + 2
  return rows.map((row) => row.left.padEnd(width) + row.right).join('\n')
}
