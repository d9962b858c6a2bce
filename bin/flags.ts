/// <reference types="node" />
/**
 * @module
 * The CLI's flags: one table gives each flag its environment variable, default, range and help line, so
 * `--help`, parsing and error messages never disagree (./flag-values.ts words them). Room options are
 * then validated by the core's own `validateOptions`, and its errors (which name the option) are mapped
 * back to the flag that set it; the proxy's `trustProxy` and `publicHosts` likewise.
 */
import { parseArgs } from 'node:util'
import { WaitingRoomError } from '../src/errors.ts'
import { validateOptions, type WaitingRoomOptions } from '../src/room/options.ts'
import { adminOf, checkBackend, originCommands, publicHostsOf, trustProxyOf, type Given } from './flag-checks.ts'
import { challengeOf } from './challenge-flags.ts'
import type { AdminMount } from './admin-mount.ts'
import { attachDashValues, convert, shown, UsageError, type FlagValueRule } from './flag-values.ts'

export { UsageError } from './flag-values.ts'

interface Flag extends FlagValueRule {
  /** Long name, without `--`. */
  name: string
  /** Environment variables read when the flag is absent, first set wins. */
  env: string[]
  /** What the value is, in `--help` (`<url>`, `<n>`); none for booleans. */
  value?: string
  /** Shown in `--help`. */
  defaultText: string
  /** The waiting room option this flag sets, if any. */
  option?: keyof WaitingRoomOptions
}

export const FLAGS: readonly Flag[] = [
  { name: 'origin', value: '<url>', env: ['WR_ORIGIN'], kind: 'string', defaultText: '(required)', help: 'base URL of the site behind the room' },
  { name: 'port', value: '<n>', env: ['WR_PORT', 'PORT'], kind: 'integer', min: 0, max: 65_535, defaultText: '8787', help: 'port to listen on, 0 for any free port' },
  { name: 'host', value: '<address>', env: ['WR_HOST'], kind: 'string', defaultText: '127.0.0.1', help: 'address to listen on (0.0.0.0: every interface)' },
  {
    name: 'public-host',
    value: '<name>',
    env: ['WR_PUBLIC_HOSTS'],
    kind: 'list',
    defaultText: 'any',
    help: 'a host name this proxy serves (shop.example, *.shop.example); any other Host gets 421. Repeat or comma-separate',
  },
  {
    name: 'trust-proxy',
    value: '<n|cidrs>',
    env: ['WR_TRUST_PROXY'],
    kind: 'string',
    defaultText: 'none',
    help: 'believe X-Forwarded-*, Forwarded, X-Real-IP and the other forwarding headers from this many proxies in front, or from these addresses/CIDR ranges (e.g. 10.0.0.0/8,::1); without it they are replaced or dropped',
  },
  { name: 'total-active-users', value: '<n>', env: ['WR_TOTAL_ACTIVE_USERS'], kind: 'integer', min: 1, max: 10_000_000, unit: 'users', defaultText: '200', help: 'users allowed on the site at once', option: 'totalActiveUsers' },
  { name: 'new-users-per-minute', value: '<n>', env: ['WR_NEW_USERS_PER_MINUTE'], kind: 'integer', min: 1, max: 10_000_000, unit: 'users', defaultText: '200', help: 'users allowed to enter in any one minute', option: 'newUsersPerMinute' },
  { name: 'session-duration', value: '<minutes>', env: ['WR_SESSION_DURATION'], kind: 'integer', min: 1, max: 30, unit: 'minutes', defaultText: '5', help: 'minutes a user stays active after their last request', option: 'sessionDurationMinutes' },
  { name: 'queueing-method', value: '<method>', env: ['WR_QUEUEING_METHOD'], kind: 'string', choices: ['fifo', 'random', 'passthrough', 'reject'], defaultText: 'fifo', help: 'the order queued users are let in, or passthrough (no queue) or reject (no entry)', subject: 'the queueing method', option: 'queueingMethod' },
  { name: 'refresh-interval', value: '<seconds>', env: ['WR_REFRESH_INTERVAL'], kind: 'integer', min: 5, max: 300, unit: 'seconds', defaultText: '20', help: "seconds between a queued user's check-ins", option: 'refreshIntervalSeconds' },
  { name: 'room-id', value: '<id>', env: ['WR_ROOM_ID'], kind: 'string', defaultText: 'default', help: 'names the room in tickets and shared state', subject: 'the room id', option: 'roomId' },
  { name: 'secret', value: '<key>', env: ['WR_SECRET', 'WAITING_ROOM_SECRET'], kind: 'string', defaultText: 'random per process', help: 'ticket key, 32+ characters; share it across processes', subject: 'the ticket key', option: 'secret' },
  { name: 'json', env: ['WR_JSON'], kind: 'boolean', defaultText: 'false', help: 'answer Accept: application/json with the queue state as JSON', option: 'jsonResponseEnabled' },
  {
    name: 'compatibility',
    value: '<mode>',
    env: ['WR_COMPATIBILITY'],
    kind: 'string',
    choices: ['default', 'cloudflare'],
    defaultText: 'default',
    help: "whose behaviour to match; cloudflare: JSON as cfWaitingRoom to exactly Accept: application/json, cookie __cfwaitingroom, Cf-Waiting-Room-Command obeyed",
    subject: 'the compatibility mode',
    option: 'compatibility',
  },
  { name: 'max-queued-users', value: '<n>', env: ['WR_MAX_QUEUED_USERS'], kind: 'integer', min: 1, max: 100_000_000, unit: 'users', defaultText: 'no limit', help: 'the queue is full at this many waiting users: new users get the page with queueIsFull and no place', option: 'maxQueuedUsers' },
  { name: 'status-code', value: '<code>', env: ['WR_STATUS_CODE'], kind: 'integer', choices: [200, 202, 429], defaultText: '200', help: 'status of the queue page', option: 'queueingStatusCode' },
  {
    name: 'origin-commands',
    value: '<commands>',
    env: ['WR_ORIGIN_COMMANDS'],
    kind: 'list',
    defaultText: 'none',
    help: "origin response headers the room obeys: revoke (the origin's Waiting-Room-Command: revoke ends the session) or none",
    option: 'enabledOriginCommands',
  },
  {
    name: 'challenge',
    value: '<provider>',
    env: ['WR_CHALLENGE'],
    kind: 'string',
    defaultText: 'none',
    help: 'a challenge before a place in line: proof-of-work, proof-of-work:<difficulty 1-24> (default 16) or none',
  },
  { name: 'challenge-fail', value: '<mode>', env: ['WR_CHALLENGE_FAIL'], kind: 'string', choices: ['infinite-queue', 'log'], defaultText: 'infinite-queue', help: 'a client that fails or skips the challenge is held, counted nowhere (infinite-queue) or admitted, counted (log)', subject: 'the treatment of a client that fails the challenge' },
  { name: 'challenge-when', value: '<when>', env: ['WR_CHALLENGE_WHEN'], kind: 'string', choices: ['queueing', 'always'], defaultText: 'queueing', help: 'who answers the challenge: only users the room would queue (queueing) or every new user (always)', subject: 'the users who answer the challenge' },
  {
    name: 'admin-token',
    value: '<token>',
    env: ['WR_ADMIN_TOKEN'],
    kind: 'string',
    defaultText: 'none (no admin API)',
    help: 'serve the admin API and dashboard at --admin-path with this bearer token (16+ characters of A-Z a-z 0-9 - . _ ~ + /)',
  },
  { name: 'admin-path', value: '<path>', env: ['WR_ADMIN_PATH'], kind: 'string', defaultText: '/_room', help: 'where --admin-token serves the admin API and dashboard' },
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
  /** `--trust-proxy`: a hop count or address ranges; undefined trusts no forwarding header. */
  trustProxy?: number | string[]
  /** `--public-host`: the hosts served; undefined serves any. */
  publicHosts?: string[]
  /** `--admin-token` and `--admin-path`: the admin API and dashboard; undefined serves none. */
  admin?: AdminMount
  room: WaitingRoomOptions
}

export interface ParsedFlags {
  help: boolean
  config: ProxyConfig
}

/** Values a command uses when neither a flag nor an environment variable sets them. */
export type FlagDefaults = Partial<Record<string, string | number | boolean>>

/**
 * Parses `argv` (without the subcommand) over `env`: a flag wins over its environment variable, which
 * wins over `defaults`. Throws {@link UsageError} naming the flag for any mistake, including room
 * options the core rejects.
 */
export function parseFlags(argv: string[], env: Record<string, string | undefined>, defaults: FlagDefaults = {}, exclude: string[] = []): ParsedFlags {
  const flags = FLAGS.filter((flag) => !exclude.includes(flag.name))
  const options: Record<string, { type: 'string' | 'boolean'; short?: string; multiple?: boolean }> = { help: { type: 'boolean', short: 'h' } }
  for (const flag of flags) options[flag.name] = { type: flag.kind === 'boolean' ? 'boolean' : 'string', multiple: flag.kind === 'list' }
  let values: Record<string, string | boolean | (string | boolean)[] | undefined>
  try {
    ;({ values } = parseArgs({ args: attachDashValues(argv, flags), options, strict: true, allowPositionals: false }))
  } catch (error) {
    if (error instanceof UsageError) throw error
    // parseArgs' messages already quote the flag ("Unknown option '--x'"); keep them.
    throw new UsageError(error instanceof Error ? error.message : String(error))
  }

  // Help must work even with a broken environment: nothing else is read.
  if (values.help === true) return { help: true, config: { origin: undefined, port: 8787, host: '127.0.0.1', store: undefined, redis: undefined, room: {} } }

  const given: Record<string, Given> = {}
  for (const flag of flags) {
    const raw = values[flag.name]
    const fromEnv = flag.env.find((name) => env[name] !== undefined && env[name] !== '')
    if (raw !== undefined) given[flag.name] = { value: convert(flag, raw, `--${flag.name}`), source: `--${flag.name}`, raw: [raw].flat().join(',') }
    else if (fromEnv) given[flag.name] = { value: convert(flag, env[fromEnv]!, fromEnv), source: fromEnv, raw: env[fromEnv]! }
    else if (defaults[flag.name] !== undefined) {
      given[flag.name] = { value: defaults[flag.name]!, source: `the ${flag.name} default`, raw: String(defaults[flag.name]) }
    }
  }

  checkBackend(given)
  const room: Record<string, unknown> = {}
  for (const flag of flags) {
    if (flag.option && given[flag.name]) room[flag.option] = given[flag.name]!.value
  }
  if (given['origin-commands']) room.enabledOriginCommands = originCommands(given['origin-commands'])
  const challenge = challengeOf(given)
  if (challenge) room.challenge = challenge
  checkRoomOptions(room as WaitingRoomOptions, flags, given)
  return {
    help: false,
    config: {
      origin: given.origin?.value as string | undefined,
      port: (given.port?.value as number | undefined) ?? 8787,
      host: (given.host?.value as string | undefined) ?? '127.0.0.1',
      store: given.store?.value as string | undefined,
      redis: given.redis?.value as string | undefined,
      trustProxy: trustProxyOf(given['trust-proxy']),
      publicHosts: publicHostsOf(given['public-host']),
      admin: adminOf(given['admin-token'], given['admin-path']),
      room: room as WaitingRoomOptions,
    },
  }
}

/**
 * Runs the core's validation and rewords its error (`invalid option roomId: …`, in the option's name) in the
 * flag's: `invalid --room-id "a b": the room id must be …`. The flags check their own values first; this
 * catches what only the core knows (a pattern, a length), and never echoes a secret.
 */
function checkRoomOptions(room: WaitingRoomOptions, flags: readonly Flag[], given: Record<string, Given>): void {
  try {
    validateOptions(room)
  } catch (error) {
    if (!(error instanceof WaitingRoomError) || error.code !== 'ERR_WR_OPTIONS') throw error
    const message = error.message.replace(/^\[hono-waiting-room\] /, '')
    const issues = message.replace(/^invalid option /, '').split('; ')
    for (const issue of issues) {
      const [, field = '', reason = ''] = /^([^:]+): (.*)$/.exec(issue) ?? []
      const flag = flags.find((candidate) => candidate.option && given[candidate.name] && (field === candidate.option || field.startsWith(`${candidate.option}.`)))
      if (!flag) continue
      const { source, raw } = given[flag.name]!
      const what = flag.option === 'secret' ? `${source} (the value is not shown)` : shown(source, raw)
      throw new UsageError(`invalid ${what}: ${flag.subject ?? flag.help} must be ${reason}`)
    }
    throw new UsageError(message)
  }
}

/** The flag table as help text, one flag a line with its environment variables and default. */
export function flagHelp(exclude: string[] = [], defaults: FlagDefaults = {}): string {
  const rows = FLAGS.filter((flag) => !exclude.includes(flag.name)).map((flag) => {
    const left = `  --${flag.name}${flag.value ? ` ${flag.value}` : ''}`
    const fallback = defaults[flag.name] !== undefined ? String(defaults[flag.name]) : flag.defaultText
    const range = flag.choices ? `: ${flag.choices.join(', ')}` : flag.max !== undefined ? ` (${flag.min ?? 0}-${flag.max})` : ''
    return { left, right: `${flag.help}${range} [env ${flag.env.join(' or ')}; default ${fallback}]` }
  })
  rows.push({ left: '  -h, --help', right: 'show this help' })
  const width = Math.max(...rows.map((row) => row.left.length)) + 2
  return rows.map((row) => row.left.padEnd(width) + row.right).join('\n')
}
