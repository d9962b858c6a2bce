/**
 * @module
 * Tickets: the encrypted cookie a user carries (seed 001). JWE compact (RFC 7516), `dir` + `A256GCM`
 * only, with a `kid` naming the key so a key ring can rotate; `jose` opens what this seals and the
 * other way round (test/ticket-interop.test.ts). Written out here rather than through jose: the
 * protected header is serialized once per key, IVs come from a batch of random bytes, and AES-GCM runs
 * through node:crypto where the runtime has it (synchronous) with Web Crypto everywhere else
 * (./aes-gcm.ts) — a new user's seal was most of the flood path's cost (issue 16). Opened tickets are
 * remembered by their exact cookie text, so a returning user costs a Map lookup and no cryptography.
 */
import { defaultAesGcm, type AesGcm, type Sealed } from './aes-gcm.ts'
import { decodeBase64url, encodeBase64url } from './base64url.ts'
import { deriveTicketKey, type TicketKey } from './keys.ts'
import { OpenedTickets } from './opened-tickets.ts'
import { randomBytes } from './random.ts'

export { randomId } from './random.ts'

export interface Ticket {
  roomId: string
  /** Random id: deduplicates replays and makes counter calls idempotent. */
  ticketId: string
  /** Minute number of first arrival: the user's place in a FIFO queue. */
  bucketId: number
  /** ms of admission; 0 while queued. */
  acceptedAt: number
  /** ms of the last counted check-in (renewed at most once a minute). */
  lastCheckInTime: number
  /** Seconds until the next check-in counts, jittered per check-in (seed 002). */
  refreshIntervalSeconds: number
  /** 1 once the user answered the room's challenge (src/challenge/): sealed here, so it is never asked again. */
  challenge?: 1 | undefined
  /**
   * Tag of the room epoch (the coordinator's stored state) the session is counted in, sealed at admission and
   * renewal: a session of another epoch is not in this state (the backend lost or replaced it). Absent on
   * queued tickets, on tickets sealed before any sync, and on tickets from older versions.
   */
  epoch?: string
  /**
   * A renewal handed out before the coordinator answered it (the store slow or down): the minute it asked to be
   * counted in. `lastCheckInTime` stays the last check-in the coordinator confirmed; the session lives through
   * this minute's window too, and its next renewal asks the coordinator to put it back if its count left the
   * window meanwhile (coordination/moves.ts). Absent on every confirmed ticket.
   */
  pending?: number
}

export interface OpenedTicket {
  ticket: Ticket
  /** The ticket was sealed with an older key of the ring: reseal it with the current one. */
  stale: boolean
}

const encoder = new TextEncoder()
const decoder = new TextDecoder()

/** How many opened tickets a worker remembers (a few MB at most). */
const CACHE_SIZE = 20_000
/** A cookie longer than this is not a ticket of ours; it is not even parsed. */
export const MAX_TICKET_LENGTH = 1024
const IV_BYTES = 12
const TAG_BYTES = 16

function isTicket(value: unknown, roomId: string): value is Ticket {
  if (typeof value !== 'object' || value === null) return false
  const t = value as Record<string, unknown>
  return (
    t.roomId === roomId &&
    typeof t.ticketId === 'string' &&
    t.ticketId.length > 0 &&
    t.ticketId.length <= 64 &&
    Number.isSafeInteger(t.bucketId) &&
    Number.isSafeInteger(t.acceptedAt) &&
    Number.isSafeInteger(t.lastCheckInTime) &&
    Number.isSafeInteger(t.refreshIntervalSeconds) &&
    (t.refreshIntervalSeconds as number) >= 0 &&
    (t.challenge === undefined || t.challenge === 1) &&
    (t.epoch === undefined || (typeof t.epoch === 'string' && t.epoch.length <= 16)) &&
    (t.pending === undefined || Number.isSafeInteger(t.pending))
  )
}

/**
 * `JSON.stringify(ticket)` for a well-formed ticket (the fields in their declared order, integers), a
 * third of its cost: it runs for every new user. Only the two strings need JSON's escaping.
 */
export function ticketJson(t: Ticket): string {
  return (
    `{"roomId":${JSON.stringify(t.roomId)},"ticketId":${JSON.stringify(t.ticketId)},"bucketId":${t.bucketId},` +
    `"acceptedAt":${t.acceptedAt},"lastCheckInTime":${t.lastCheckInTime},"refreshIntervalSeconds":${t.refreshIntervalSeconds}` +
    (t.challenge === 1 ? ',"challenge":1' : '') +
    (t.epoch === undefined ? '' : `,"epoch":${JSON.stringify(t.epoch)}`) +
    (t.pending === undefined ? '}' : `,"pending":${t.pending}}`)
  )
}

/**
 * `{ ...ticket, epoch }` as an object of one fixed shape (every field present, in declared order): the spread
 * made a dictionary-mode object on V8, and each of {@link ticketJson}'s reads of it missed the property caches
 * into the runtime on every admission (issue 16). The same JSON: absent and undefined fields print alike.
 */
export function withEpoch(t: Ticket, epoch: string): Ticket {
  return {
    roomId: t.roomId,
    ticketId: t.ticketId,
    bucketId: t.bucketId,
    acceptedAt: t.acceptedAt,
    lastCheckInTime: t.lastCheckInTime,
    refreshIntervalSeconds: t.refreshIntervalSeconds,
    challenge: t.challenge,
    epoch,
    pending: t.pending,
  }
}

/**
 * The key of the ring a protected header names; undefined unless it is `dir` + `A256GCM` with a known
 * `kid` and nothing that changes its meaning (`crit`, `zip`), as jose requires too. Our own headers
 * match byte for byte; any other serialization is parsed.
 */
function keyOfHeader(header: string, keys: readonly TicketKey[]): TicketKey | undefined {
  for (const key of keys) if (key.header === header) return key
  const bytes = decodeBase64url(header)
  if (!bytes) return undefined
  let parsed: unknown
  try {
    parsed = JSON.parse(decoder.decode(bytes))
  } catch {
    return undefined
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return undefined
  const h = parsed as Record<string, unknown>
  if (h.alg !== 'dir' || h.enc !== 'A256GCM' || 'crit' in h || 'zip' in h) return undefined
  return keys.find((key) => key.kid === h.kid)
}

/**
 * The JWE compact serialization of a sealed ticket. Not remembered by the sealer: in a flood most sealed
 * tickets never come back, and thousands of remembered ones outlive the young generation, so every new user
 * paid for old-generation GC. A user who does come back costs one open (a few µs on node:crypto), then is
 * remembered.
 */
function compact(key: TicketKey, iv: Uint8Array, { ciphertext, tag }: Sealed): string {
  // BASE64URL(header) . BASE64URL(encrypted key: empty for dir) . BASE64URL(IV) . BASE64URL(ciphertext) . BASE64URL(tag)
  return `${key.header}..${encodeBase64url(iv)}.${encodeBase64url(ciphertext)}.${encodeBase64url(tag)}`
}

export class TicketSealer {
  readonly roomId: string
  /** The AES-GCM implementation in use (node:crypto or Web Crypto). */
  readonly aes: AesGcm
  /** The sealing secret: other keys of the room (the challenge HMAC key) are derived from it too. */
  readonly secret: string
  #ready: Promise<TicketKey[]>
  #keys: TicketKey[] | undefined
  #opened = new OpenedTickets<OpenedTicket>(CACHE_SIZE)

  /** `secrets[0]` seals; every secret opens. `aes` defaults to the fastest working one on this runtime. */
  constructor(roomId: string, secrets: readonly string[], aes: AesGcm = defaultAesGcm()) {
    if (secrets.length === 0) throw new Error('TicketSealer needs at least one secret')
    this.roomId = roomId
    this.aes = aes
    this.secret = secrets[0]!
    this.#ready = Promise.all(secrets.map((secret) => deriveTicketKey(secret, aes)))
    this.#ready.then((keys) => (this.#keys = keys), () => {})
  }

  async seal(ticket: Ticket): Promise<string> {
    return this.sealNow(ticket)
  }

  /**
   * {@link seal}, answered without a promise where the keys are derived and the cipher is synchronous
   * (node:crypto): a new or queued user's request then has no await of its own for the seal (each costs a turn
   * of the microtask queue, issue 16). A promise otherwise (Web Crypto, or keys still being derived).
   */
  sealNow(ticket: Ticket): string | Promise<string> {
    const keys = this.#keys
    if (keys === undefined) return this.#ready.then(() => this.sealNow(ticket))
    const current = keys[0]!
    const iv = randomBytes(IV_BYTES)
    const result = this.aes.encrypt(current.key, iv, ticketJson(ticket), current.aad)
    return result instanceof Promise ? result.then((sealed) => compact(current, iv, sealed)) : compact(current, iv, result)
  }

  /** The remembered ticket for this exact cookie text, without cryptography; undefined when not remembered. */
  cached(cookie: string): OpenedTicket | undefined {
    return this.#opened.get(cookie)
  }

  /** Opens a cookie; undefined for anything that is not a ticket of this room sealed by a key of the ring. */
  async open(cookie: string): Promise<OpenedTicket | undefined> {
    const hit = this.cached(cookie)
    if (hit) return hit
    if (cookie.length > MAX_TICKET_LENGTH) return undefined
    const parts = cookie.split('.')
    // Tampered, truncated, foreign or unknown-key cookies are simply not tickets: the user is new.
    if (parts.length !== 5 || parts[1] !== '') return undefined
    const keys = this.#keys ?? (await this.#ready)
    const key = keyOfHeader(parts[0]!, keys)
    const iv = decodeBase64url(parts[2]!)
    const ciphertext = decodeBase64url(parts[3]!)
    const tag = decodeBase64url(parts[4]!)
    if (!key || iv?.length !== IV_BYTES || !ciphertext || tag?.length !== TAG_BYTES) return undefined
    const aad = key.header === parts[0] ? key.aad : encoder.encode(parts[0])
    const result = this.aes.decrypt(key.key, iv, ciphertext, tag, aad)
    const plaintext = result instanceof Promise ? await result : result
    if (!plaintext) return undefined
    let ticket: unknown
    try {
      ticket = JSON.parse(decoder.decode(plaintext))
    } catch {
      return undefined
    }
    if (!isTicket(ticket, this.roomId)) return undefined
    const opened = { ticket, stale: key !== keys[0] }
    this.#opened.remember(cookie, opened)
    return opened
  }
}
