/**
 * @module
 * Random bytes drawn in batches. A flood of new users needs 24 random bytes each (a ticket id and an IV);
 * one `crypto.getRandomValues` call per need cost ~16% of that path's CPU on Node (issue 16), one call per
 * 4 KB costs next to nothing. Every byte is handed out once: a batch is never refilled in place — the next
 * one is a new array — so a view handed out earlier keeps its bytes.
 */
import { encodeBase64url } from './base64url.ts'

/** Bytes drawn per call: 170 tickets' worth, and well under Web Crypto's 65,536-byte limit per call. */
const BATCH_BYTES = 4096

let batch = new Uint8Array(0)
let used = 0

/** `n` (≤ 4096) bytes from the runtime's CSPRNG, as a view that nobody else is given. */
export function randomBytes(n: number): Uint8Array {
  if (used + n > batch.length) {
    batch = crypto.getRandomValues(new Uint8Array(BATCH_BYTES))
    used = 0
  }
  const bytes = batch.subarray(used, used + n)
  used += n
  return bytes
}

/** 96 random bits, base64url (16 characters). */
export function randomId(): string {
  return encodeBase64url(randomBytes(12))
}
