/**
 * @module
 * AES-256-GCM for tickets, two ways. Web Crypto works on every runtime, but each call is a promise
 * settled from another thread on Node: ~100 µs of CPU per seal there, mostly the hand-off (issue 16).
 * Where the runtime has `node:crypto` — Node, Bun, Deno, Workers with `nodejs_compat` — the same
 * cipher runs synchronously in a few µs. It is looked up at run time through
 * `process.getBuiltinModule`, never imported, so the core stays runtime-neutral, and it is only used
 * after it reproduced a known answer (and refused a forged tag) on this runtime.
 */

/** A key prepared for one primitive: a CryptoKey for Web Crypto, the key bytes for node:crypto. */
export type AesKey = unknown

export interface Sealed {
  ciphertext: Uint8Array
  tag: Uint8Array
}

/** One implementation of AES-256-GCM with 96-bit IVs and 128-bit tags. */
export interface AesGcm {
  readonly name: 'node:crypto' | 'web-crypto'
  importKey(raw: Uint8Array): AesKey | Promise<AesKey>
  /** A string is encrypted as its UTF-8 bytes. */
  encrypt(key: AesKey, iv: Uint8Array, plaintext: string | Uint8Array, aad: Uint8Array): Sealed | Promise<Sealed>
  /** The plaintext; undefined when the tag does not verify. */
  decrypt(key: AesKey, iv: Uint8Array, ciphertext: Uint8Array, tag: Uint8Array, aad: Uint8Array): Uint8Array | undefined | Promise<Uint8Array | undefined>
}

const encoder = new TextEncoder()
const TAG_BYTES = 16

export const webCryptoAesGcm: AesGcm = {
  name: 'web-crypto',
  importKey: (raw) => crypto.subtle.importKey('raw', raw as Uint8Array<ArrayBuffer>, 'AES-GCM', false, ['encrypt', 'decrypt']),
  async encrypt(key, iv, plaintext, aad) {
    const params = { name: 'AES-GCM', iv: iv as Uint8Array<ArrayBuffer>, additionalData: aad as Uint8Array<ArrayBuffer>, tagLength: 128 }
    const bytes = typeof plaintext === 'string' ? encoder.encode(plaintext) : (plaintext as Uint8Array<ArrayBuffer>)
    const sealed = new Uint8Array(await crypto.subtle.encrypt(params, key as CryptoKey, bytes))
    return { ciphertext: sealed.subarray(0, sealed.length - TAG_BYTES), tag: sealed.subarray(sealed.length - TAG_BYTES) }
  },
  async decrypt(key, iv, ciphertext, tag, aad) {
    const joined = new Uint8Array(ciphertext.length + tag.length)
    joined.set(ciphertext)
    joined.set(tag, ciphertext.length)
    const params = { name: 'AES-GCM', iv: iv as Uint8Array<ArrayBuffer>, additionalData: aad as Uint8Array<ArrayBuffer>, tagLength: 128 }
    try {
      return new Uint8Array(await crypto.subtle.decrypt(params, key as CryptoKey, joined))
    } catch {
      return undefined
    }
  },
}

/** The few members of node:crypto used here, typed locally: the core has no Node types. */
interface NodeCipher {
  setAAD(aad: Uint8Array): unknown
  update(data: string, encoding: 'utf8'): Uint8Array
  update(data: Uint8Array): Uint8Array
  final(): Uint8Array
  getAuthTag(): Uint8Array
  setAuthTag(tag: Uint8Array): unknown
}
interface NodeCrypto {
  createCipheriv(algorithm: 'aes-256-gcm', key: Uint8Array, iv: Uint8Array, options: { authTagLength: number }): NodeCipher
  createDecipheriv(algorithm: 'aes-256-gcm', key: Uint8Array, iv: Uint8Array, options: { authTagLength: number }): NodeCipher
}

const GCM = 'aes-256-gcm'
const TAG_OPTIONS = { authTagLength: TAG_BYTES }

/** No AAD is the same as an empty one in GCM; workerd's node:crypto fails the whole operation on an empty one. */
function setAad(cipher: NodeCipher, aad: Uint8Array): void {
  if (aad.length > 0) cipher.setAAD(aad)
}

function nodeAesGcm(node: NodeCrypto): AesGcm {
  return {
    name: 'node:crypto',
    importKey: (raw) => raw.slice(),
    encrypt(key, iv, plaintext, aad) {
      const cipher = node.createCipheriv(GCM, key as Uint8Array, iv, TAG_OPTIONS)
      setAad(cipher, aad)
      const ciphertext = typeof plaintext === 'string' ? cipher.update(plaintext, 'utf8') : cipher.update(plaintext)
      cipher.final() // GCM holds nothing back: empty
      return { ciphertext, tag: cipher.getAuthTag() }
    },
    decrypt(key, iv, ciphertext, tag, aad) {
      try {
        const decipher = node.createDecipheriv(GCM, key as Uint8Array, iv, TAG_OPTIONS)
        setAad(decipher, aad)
        decipher.setAuthTag(tag)
        const head = decipher.update(ciphertext)
        const tail = decipher.final() // throws when the tag does not verify
        if (tail.length === 0) return head
        const plaintext = new Uint8Array(head.length + tail.length)
        plaintext.set(head)
        plaintext.set(tail, head.length)
        return plaintext
      } catch {
        return undefined
      }
    },
  }
}

const hex = (bytes: Uint8Array): string => Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('')
const bytesOf = (text: string): Uint8Array => new Uint8Array(text.match(/../g)!.map((pair) => parseInt(pair, 16)))

/** The GCM specification's test case 16 (AES-256, 60 bytes of plaintext, 20 of additional data). */
const KNOWN = {
  key: 'feffe9928665731c6d6a8f9467308308feffe9928665731c6d6a8f9467308308',
  iv: 'cafebabefacedbaddecaf888',
  plaintext: 'd9313225f88406e5a55909c5aff5269a86a7a9531534f7da2e4c303d8a318a721c3c0c95956809532fcf0e2449a6b525b16aedf5aa0de657ba637b39',
  aad: 'feedfacedeadbeeffeedfacedeadbeefabaddad2',
  ciphertext: '522dc1f099567d07f47f37a32a84427d643a8cdcbfe5c0c97598a2bd2555d1aa8cb08e48590dbb3da7b08b1056828838c5f61e6393ba7a0abcc9f662',
  tag: '76fc6ece0f4e1768cddf8853bb2d551b',
}

/**
 * Whether a synchronous implementation is one to trust: it reproduces the known answer, opens it, refuses
 * it under a forged tag, and encrypts a string as its UTF-8 bytes.
 */
function passesKnownAnswer(aes: AesGcm): boolean {
  const [key, iv, aad] = [bytesOf(KNOWN.key), bytesOf(KNOWN.iv), bytesOf(KNOWN.aad)]
  const sealed = aes.encrypt(key, iv, bytesOf(KNOWN.plaintext), aad) as Sealed
  if (hex(sealed.ciphertext) !== KNOWN.ciphertext || hex(sealed.tag) !== KNOWN.tag) return false
  const opened = aes.decrypt(key, iv, sealed.ciphertext, sealed.tag, aad) as Uint8Array | undefined
  if (opened === undefined || hex(opened) !== KNOWN.plaintext) return false
  const forged = sealed.tag.slice()
  forged[15]! ^= 1
  if (aes.decrypt(key, iv, sealed.ciphertext, forged, aad) !== undefined) return false
  const text = 'tïcket ✓'
  const fromText = aes.encrypt(key, iv, text, aad) as Sealed
  const fromBytes = aes.encrypt(key, iv, new TextEncoder().encode(text), aad) as Sealed
  return hex(fromText.ciphertext) === hex(fromBytes.ciphertext) && hex(fromText.tag) === hex(fromBytes.tag)
}

/**
 * node:crypto's AES-256-GCM from `lookup` (a `getBuiltinModule`), when it has one that passes the known
 * answer; undefined otherwise, including when the lookup throws.
 */
export function nodeCryptoAesGcmFrom(lookup: ((id: string) => unknown) | undefined): AesGcm | undefined {
  try {
    const node = lookup?.('node:crypto') as Partial<NodeCrypto> | undefined
    if (typeof node?.createCipheriv !== 'function' || typeof node.createDecipheriv !== 'function') return undefined
    const candidate = nodeAesGcm(node as NodeCrypto)
    return passesKnownAnswer(candidate) ? candidate : undefined
  } catch {
    return undefined // a runtime whose node:crypto throws here is one without it
  }
}

let found: AesGcm | null | undefined

/** node:crypto's AES-256-GCM when this runtime has a working one; undefined elsewhere. Looked up once. */
export function nodeCryptoAesGcm(): AesGcm | undefined {
  if (found === undefined) {
    const process = (globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }).process
    const lookup = process?.getBuiltinModule
    found = nodeCryptoAesGcmFrom(lookup && ((id) => lookup.call(process, id))) ?? null
  }
  return found ?? undefined
}

/** The fastest working AES-256-GCM here: node:crypto when the runtime has it, else Web Crypto. */
export function defaultAesGcm(): AesGcm {
  return nodeCryptoAesGcm() ?? webCryptoAesGcm
}
