/**
 * @module
 * Ticket keys: a 256-bit AES key and a public key id per secret, and each key's JWE protected header,
 * serialized once (it only depends on the key id).
 */
import { type AesGcm, type AesKey } from './aes-gcm.ts'
import { encodeBase64url } from './base64url.ts'

export interface TicketKey {
  kid: string
  key: AesKey
  /** The protected header, base64url: the first part of every ticket this key seals. */
  header: string
  /** Its ASCII bytes: the AES-GCM additional data (RFC 7516 §5.1, step 14). */
  aad: Uint8Array
}

const encoder = new TextEncoder()

/**
 * The key bytes and key id of a secret: HKDF-SHA-256 for the key (the bits `deriveKey` gave the
 * AES-GCM key before, so tickets sealed by earlier versions still open), a separate hash for the id.
 */
export async function deriveKeyMaterial(secret: string): Promise<{ raw: Uint8Array; kid: string }> {
  const material = await crypto.subtle.importKey('raw', encoder.encode(secret), 'HKDF', false, ['deriveBits'])
  const raw = new Uint8Array(
    await crypto.subtle.deriveBits(
      { name: 'HKDF', hash: 'SHA-256', salt: encoder.encode('hono-waiting-room'), info: encoder.encode('ticket A256GCM v1') },
      material,
      256,
    ),
  )
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', encoder.encode(`kid\n${secret}`)))
  return { raw, kid: encodeBase64url(digest.subarray(0, 6)) }
}

/** A secret's key, prepared for `aes`. */
export async function deriveTicketKey(secret: string, aes: AesGcm): Promise<TicketKey> {
  const { raw, kid } = await deriveKeyMaterial(secret)
  const header = encodeBase64url(encoder.encode(JSON.stringify({ alg: 'dir', enc: 'A256GCM', kid })))
  return { kid, key: await aes.importKey(raw), header, aad: encoder.encode(header) }
}
