/**
 * @module
 * Tickets: the encrypted cookie a user carries (seed 001). JWE compact, `dir` + `A256GCM` only, with a
 * `kid` naming the key so a key ring can rotate. Keys are imported once; opened tickets are remembered
 * by their exact cookie text, so a returning user costs a Map lookup and no cryptography.
 */
import { CompactEncrypt, compactDecrypt, type CompactJWEHeaderParameters } from 'jose'

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
}

interface Key {
  kid: string
  key: CryptoKey
}

export interface OpenedTicket {
  ticket: Ticket
  /** The ticket was sealed with an older key of the ring: reseal it with the current one. */
  stale: boolean
}

const encoder = new TextEncoder()
const decoder = new TextDecoder()
const ONLY_DIR = { keyManagementAlgorithms: ['dir'], contentEncryptionAlgorithms: ['A256GCM'] }

/** How many opened tickets a worker remembers (a few MB at most). */
const CACHE_SIZE = 20_000
/** A cookie longer than this is not a ticket of ours; it is not even parsed. */
export const MAX_TICKET_LENGTH = 1024

function base64url(bytes: Uint8Array): string {
  let text = ''
  for (const byte of bytes) text += String.fromCharCode(byte)
  return btoa(text).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '')
}

/** 96 random bits, base64url. */
export function randomId(): string {
  return base64url(crypto.getRandomValues(new Uint8Array(12)))
}

/** Derives a 256-bit AES key and a public key id from a secret: HKDF for the key, a separate hash for the id. */
async function deriveKey(secret: string): Promise<Key> {
  const material = await crypto.subtle.importKey('raw', encoder.encode(secret), 'HKDF', false, ['deriveKey'])
  const key = await crypto.subtle.deriveKey(
    { name: 'HKDF', hash: 'SHA-256', salt: encoder.encode('hono-waiting-room'), info: encoder.encode('ticket A256GCM v1') },
    material,
    { name: 'AES-GCM', length: 256 },
    false,
    ['encrypt', 'decrypt'],
  )
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', encoder.encode(`kid\n${secret}`)))
  return { kid: base64url(digest.slice(0, 6)), key }
}

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
    (t.refreshIntervalSeconds as number) >= 0
  )
}

export class TicketSealer {
  readonly roomId: string
  #keys: Promise<Key[]>
  #cache = new Map<string, OpenedTicket>()

  /** `secrets[0]` seals; every secret opens. */
  constructor(roomId: string, secrets: readonly string[]) {
    if (secrets.length === 0) throw new Error('TicketSealer needs at least one secret')
    this.roomId = roomId
    this.#keys = Promise.all(secrets.map(deriveKey))
  }

  async seal(ticket: Ticket): Promise<string> {
    const [current] = await this.#keys
    const jwe = await new CompactEncrypt(encoder.encode(JSON.stringify(ticket)))
      .setProtectedHeader({ alg: 'dir', enc: 'A256GCM', kid: current!.kid })
      .encrypt(current!.key)
    this.#remember(jwe, { ticket, stale: false })
    return jwe
  }

  /** The remembered ticket for this exact cookie text, without cryptography; undefined when not remembered. */
  cached(cookie: string): OpenedTicket | undefined {
    return this.#cache.get(cookie)
  }

  /** Opens a cookie; undefined for anything that is not a ticket of this room sealed by a key of the ring. */
  async open(cookie: string): Promise<OpenedTicket | undefined> {
    const hit = this.#cache.get(cookie)
    if (hit) return hit
    if (cookie.length > MAX_TICKET_LENGTH || cookie.split('.').length !== 5) return undefined
    const keys = await this.#keys
    let kid: string | undefined
    try {
      const { plaintext, protectedHeader } = await compactDecrypt(
        cookie,
        (header: CompactJWEHeaderParameters) => {
          const found = keys.find((k) => k.kid === header.kid)
          if (!found) throw new Error('unknown kid')
          kid = found.kid
          return found.key
        },
        ONLY_DIR,
      )
      if (protectedHeader.alg !== 'dir' || protectedHeader.enc !== 'A256GCM') return undefined
      const ticket: unknown = JSON.parse(decoder.decode(plaintext))
      if (!isTicket(ticket, this.roomId)) return undefined
      const opened = { ticket, stale: kid !== keys[0]!.kid }
      this.#remember(cookie, opened)
      return opened
    } catch {
      // Tampered, truncated, foreign or unknown-key cookies are simply not tickets: the user is new.
      return undefined
    }
  }

  #remember(cookie: string, opened: OpenedTicket): void {
    if (this.#cache.size >= CACHE_SIZE) this.#cache.delete(this.#cache.keys().next().value!)
    this.#cache.set(cookie, opened)
  }
}
