/**
 * @module
 * SHA-256 and HMAC-SHA-256 for challenges. A proof-of-work solution is checked on the request that brings
 * it, so the check should cost a few µs, not a Web Crypto round trip (~100 µs of hand-off on Node, issue 16):
 * where the runtime has `node:crypto` (Node, Bun, Deno, Workers with `nodejs_compat`) it is used
 * synchronously, looked up at run time through `process.getBuiltinModule` (never imported: the core stays
 * runtime-neutral) and only after it reproduced known answers; Web Crypto everywhere else.
 */
import { encodeBase64url } from '../ticket/base64url.ts'

const encoder = new TextEncoder()

/** One SHA-256 and HMAC implementation. Results may be promises (Web Crypto). */
export interface ChallengeCrypto {
  readonly name: 'node:crypto' | 'web-crypto'
  sha256(text: string): Uint8Array | Promise<Uint8Array>
  /** HMAC-SHA-256 of `text` under `key` (raw bytes), base64url. */
  hmac(key: Uint8Array, text: string): string | Promise<string>
}

interface NodeHash {
  update(data: string, encoding: 'utf8'): NodeHash
  digest(): Uint8Array
}
interface NodeCrypto {
  createHash(algorithm: 'sha256'): NodeHash
  createHmac(algorithm: 'sha256', key: Uint8Array): NodeHash
}

export const webChallengeCrypto: ChallengeCrypto = {
  name: 'web-crypto',
  async sha256(text) {
    return new Uint8Array(await crypto.subtle.digest('SHA-256', encoder.encode(text)))
  },
  async hmac(key, text) {
    const imported = await crypto.subtle.importKey('raw', key as Uint8Array<ArrayBuffer>, { name: 'HMAC', hash: 'SHA-256' }, false, ['sign'])
    return encodeBase64url(new Uint8Array(await crypto.subtle.sign('HMAC', imported, encoder.encode(text))))
  },
}

function nodeChallengeCrypto(node: NodeCrypto): ChallengeCrypto {
  return {
    name: 'node:crypto',
    sha256: (text) => node.createHash('sha256').update(text, 'utf8').digest(),
    hmac: (key, text) => encodeBase64url(node.createHmac('sha256', key).update(text, 'utf8').digest()),
  }
}

const hex = (bytes: Uint8Array): string => Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('')

/** FIPS 180-2's "abc" and RFC 4231 test case 2 ("Jefe"). */
const SHA_ABC = 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad'
const HMAC_JEFE = 'W9zBRr9gdU5qBCQmCJV1x1oAPwidJzmDnexYuWTsOEM'

function passesKnownAnswers(candidate: ChallengeCrypto): boolean {
  const digest = candidate.sha256('abc') as Uint8Array
  const mac = candidate.hmac(encoder.encode('Jefe'), 'what do ya want for nothing?') as string
  return hex(digest) === SHA_ABC && mac === HMAC_JEFE
}

/** node:crypto's hashes from `lookup` (a `getBuiltinModule`) when they pass the known answers; else undefined. */
export function nodeChallengeCryptoFrom(lookup: ((id: string) => unknown) | undefined): ChallengeCrypto | undefined {
  try {
    const node = lookup?.('node:crypto') as Partial<NodeCrypto> | undefined
    if (typeof node?.createHash !== 'function' || typeof node.createHmac !== 'function') return undefined
    const candidate = nodeChallengeCrypto(node as NodeCrypto)
    return passesKnownAnswers(candidate) ? candidate : undefined
  } catch {
    return undefined
  }
}

let found: ChallengeCrypto | undefined

/** The fastest working implementation here, looked up once. */
export function challengeCrypto(): ChallengeCrypto {
  if (!found) {
    const process = (globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }).process
    const lookup = process?.getBuiltinModule
    found = nodeChallengeCryptoFrom(lookup && ((id) => lookup.call(process, id))) ?? webChallengeCrypto
  }
  return found
}

/** Leading zero bits of a digest. */
export function leadingZeroBits(digest: Uint8Array): number {
  let bits = 0
  for (const byte of digest) {
    if (byte === 0) {
      bits += 8
      continue
    }
    return bits + Math.clz32(byte) - 24
  }
  return bits
}

/** The challenge HMAC key of a room secret: HKDF-SHA-256 with its own label, so it is never the ticket key. */
export async function deriveChallengeKey(secret: string): Promise<Uint8Array> {
  const material = await crypto.subtle.importKey('raw', encoder.encode(secret), 'HKDF', false, ['deriveBits'])
  const info = encoder.encode('challenge HMAC-SHA-256 v1')
  const bits = await crypto.subtle.deriveBits({ name: 'HKDF', hash: 'SHA-256', salt: encoder.encode('hono-waiting-room'), info }, material, 256)
  return new Uint8Array(bits)
}
