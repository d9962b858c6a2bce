/**
 * @module
 * base64url without padding (RFC 4648 §5), as JWE compact serialization uses it. Encoding uses the
 * runtime's own encoder — `Uint8Array.prototype.toBase64` (Bun, Deno, recent V8), else Node's Buffer,
 * found at run time like node:crypto (./aes-gcm.ts) — and a table elsewhere: `btoa` over a byte string
 * plus three regex passes costs several times more for a ticket, on every new user. Decoding is always the strict table below (it runs once per cookie text: opened tickets are
 * remembered), so every runtime refuses the same texts.
 */

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_'
/** Two characters per 12 bits: half the string concatenations of one per 6 bits. */
const PAIRS: string[] = Array.from({ length: 4096 }, (_, n) => ALPHABET[n >> 6]! + ALPHABET[n & 63]!)
/** Character code → 6-bit value; 255 for characters outside the alphabet. */
const VALUES = new Uint8Array(128).fill(255)
for (let i = 0; i < ALPHABET.length; i++) VALUES[ALPHABET.charCodeAt(i)] = i

interface NativeBase64 {
  toBase64?: (this: Uint8Array, options: { alphabet: 'base64url'; omitPadding: boolean }) => string
}
interface NodeBuffer {
  from(buffer: ArrayBufferLike, byteOffset: number, length: number): { toString(encoding: 'base64url'): string }
}
const nativeEncode = (Uint8Array.prototype as NativeBase64).toBase64
const ENCODE_OPTIONS = { alphabet: 'base64url', omitPadding: true } as const

function findNodeBuffer(): NodeBuffer | undefined {
  try {
    const process = (globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }).process
    const buffer = (process?.getBuiltinModule?.('node:buffer') as { Buffer?: NodeBuffer } | undefined)?.Buffer
    // Used only if it encodes like the table (a runtime's Buffer without base64url would not).
    if (typeof buffer?.from === 'function' && buffer.from(new Uint8Array([251, 255]).buffer, 0, 2).toString('base64url') === '-_8') return buffer
  } catch {
    // no Buffer here
  }
  return undefined
}
const nodeBuffer = nativeEncode ? undefined : findNodeBuffer()

export function encodeBase64url(bytes: Uint8Array): string {
  if (nativeEncode) return nativeEncode.call(bytes, ENCODE_OPTIONS)
  if (nodeBuffer) return nodeBuffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64url')
  return encodeWithTable(bytes)
}

/** The encoder of runtimes without one of their own; exported for tests. */
export function encodeWithTable(bytes: Uint8Array): string {
  let out = ''
  const whole = bytes.length - (bytes.length % 3)
  for (let i = 0; i < whole; i += 3) {
    const n = (bytes[i]! << 16) | (bytes[i + 1]! << 8) | bytes[i + 2]!
    out += PAIRS[n >> 12]! + PAIRS[n & 4095]!
  }
  if (bytes.length - whole === 1) {
    const n = bytes[whole]!
    out += ALPHABET[n >> 2]! + ALPHABET[(n & 3) << 4]!
  } else if (bytes.length - whole === 2) {
    const n = (bytes[whole]! << 8) | bytes[whole + 1]!
    out += ALPHABET[n >> 10]! + ALPHABET[(n >> 4) & 63]! + ALPHABET[(n & 15) << 2]!
  }
  return out
}

/**
 * Decodes unpadded base64url; undefined for anything else (a character outside the alphabet, padding, a
 * length no encoding produces, or non-zero bits left over in the last character — one text per value).
 */
export function decodeBase64url(text: string): Uint8Array | undefined {
  const rest = text.length & 3
  if (rest === 1) return undefined
  const out = new Uint8Array((text.length >> 2) * 3 + (rest === 0 ? 0 : rest - 1))
  let bits = 0
  let count = 0
  let at = 0
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i)
    const value = code < 128 ? VALUES[code]! : 255
    if (value === 255) return undefined
    bits = (bits << 6) | value
    count += 6
    if (count >= 8) {
      count -= 8
      out[at++] = (bits >> count) & 255
    }
  }
  if ((bits & ((1 << count) - 1)) !== 0) return undefined
  return out
}
