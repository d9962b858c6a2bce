/**
 * @module
 * `waitingRoomAdmin()`'s options: typed, documented with their defaults, validated once when the admin
 * app is built. A bad value throws a {@link WaitingRoomError} naming the field (never echoing a token).
 */
import { z } from 'zod'
import { WaitingRoomError } from '../errors.ts'

export interface WaitingRoomAdminOptions {
  /**
   * The bearer token(s) the admin API accepts, compared in constant time. At least 16 characters of
   * `A–Z a–z 0–9 - . _ ~ + /` (RFC 6750 token68, optional `=` padding). Several tokens allow rotation:
   * add the new one, move clients over, drop the old one. Required, no default: `undefined` (an unset
   * environment variable, `process.env.ROOM_ADMIN_TOKEN`) type-checks, and throws when the admin is built.
   */
  token: string | string[] | undefined
  /** The realm named in `WWW-Authenticate: Bearer realm="…"` challenges. Default `hono-waiting-room`. */
  realm?: string | undefined
  /** Prefix of the Prometheus metric names (`<prefix>_decisions_total`, …). Default `waiting_room`. */
  metricsPrefix?: string | undefined
  /**
   * Where this admin is mounted with `app.mount(mountPath, admin.fetch)` AFTER a room (e.g. `/_room`; the
   * full path in the app, as Hono routes it): the room cannot see the app behind a mount, so it lets a
   * request pass only under this declared path, to an endpoint this admin has. A path of plain segments (letters, digits, - . _ ~), starting with `/`, no
   * trailing slash. Default: none — mount with `app.route`, or mount the admin before the room.
   */
  mountPath?: string | undefined
}

export interface ResolvedAdminOptions {
  tokens: string[]
  realm: string
  metricsPrefix: string
  mountPath: string | undefined
}

export const MIN_TOKEN_LENGTH = 16
/** What hono's bearerAuth (RFC 6750 token68) accepts in a header: a token outside it could never match. */
const TOKEN68 = /^[A-Za-z0-9._~+/-]+=*$/

const adminOptionsSchema = z
  .strictObject({
    token: z.union([z.string(), z.array(z.string())], { error: 'expected a string or an array of strings' }),
    realm: z.string().regex(/^[\x20-\x7e]*$/, 'printable ASCII only').optional(),
    metricsPrefix: z.string().regex(/^[a-zA-Z_:][a-zA-Z0-9_:]*$/, 'a Prometheus metric name: letters, digits, _ and :').optional(),
    // As the CLI's --admin-path: no '..', '//', '%', ';', '\\', spaces or trailing slash, so one reading only.
    mountPath: z
      .string()
      .regex(/^(?:\/[A-Za-z0-9._~-]+)+$/, 'a path of plain segments such as /_room (starts with /, letters, digits, - . _ ~; no trailing slash)')
      .refine((path) => !/\/\.\.?(?:\/|$)/.test(path), 'no . or .. segments')
      .optional(),
  })
  .superRefine((options, ctx) => {
    const tokens = Array.isArray(options.token) ? options.token : [options.token]
    if (Array.isArray(options.token) && tokens.length === 0) ctx.addIssue({ code: 'custom', path: ['token'], message: 'at least one token' })
    tokens.forEach((token, index) => {
      const path = Array.isArray(options.token) ? ['token', index] : ['token']
      if (token.length < MIN_TOKEN_LENGTH) ctx.addIssue({ code: 'custom', path, message: `at least ${MIN_TOKEN_LENGTH} characters` })
      else if (!TOKEN68.test(token)) ctx.addIssue({ code: 'custom', path, message: 'only letters, digits and - . _ ~ + / (then = padding), as a bearer token allows' })
    })
  })

/** Validates and applies defaults; throws naming the first bad field. */
export function resolveAdminOptions(options: WaitingRoomAdminOptions): ResolvedAdminOptions {
  if (options?.token === undefined) {
    // What an unset environment variable gives: say so, rather than "expected a string".
    throw new WaitingRoomError(
      'ERR_WR_OPTIONS',
      'waitingRoomAdmin: invalid option token: missing (undefined): the admin API needs a bearer token of 16+ characters; is the environment variable it is read from set?',
    )
  }
  const result = adminOptionsSchema.safeParse(options ?? {})
  if (!result.success) {
    const messages = result.error.issues.map((issue) => {
      const field = issue.path.join('.') || (issue.code === 'unrecognized_keys' ? issue.keys.join(', ') : '(options)')
      return `${field}: ${issue.message}`
    })
    throw new WaitingRoomError('ERR_WR_OPTIONS', `waitingRoomAdmin: invalid option ${messages.join('; ')}`)
  }
  const o = result.data
  return {
    tokens: Array.isArray(o.token) ? o.token : [o.token],
    realm: o.realm ?? 'hono-waiting-room',
    metricsPrefix: o.metricsPrefix ?? 'waiting_room',
    mountPath: o.mountPath,
  }
}
