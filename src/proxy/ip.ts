/**
 * @module
 * IP addresses and CIDR ranges, IPv4 and IPv6, for the proxy's `trustProxy` list. Runtime-neutral (no
 * `node:net`): addresses become 16 bytes, IPv4 as IPv4-mapped IPv6 (`::ffff:a.b.c.d`), so one prefix
 * comparison serves both families and a Node peer reported as `::ffff:10.0.0.1` matches `10.0.0.0/8`.
 */

/** A parsed range: the first `bits` bits of `bytes` must match. */
export interface Cidr {
  bytes: Uint8Array
  bits: number
  /** As written, for messages. */
  text: string
}

const V4_MAPPED_PREFIX = [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff]

function parseIPv4(text: string): number[] | undefined {
  const parts = text.split('.')
  if (parts.length !== 4) return undefined
  const bytes: number[] = []
  for (const part of parts) {
    // No leading zeros: `010` is octal to some parsers and decimal to others.
    if (!/^(0|[1-9]\d{0,2})$/.test(part)) return undefined
    const value = Number(part)
    if (value > 255) return undefined
    bytes.push(value)
  }
  return bytes
}

function parseIPv6(text: string): number[] | undefined {
  let words: number[] = []
  let tail = text
  // An embedded IPv4 address stands for the last two words (`::ffff:10.0.0.1`).
  const lastColon = text.lastIndexOf(':')
  if (text.includes('.', lastColon)) {
    const v4 = parseIPv4(text.slice(lastColon + 1))
    if (!v4 || lastColon < 1) return undefined
    tail = text.slice(0, lastColon + 1) + '0:0'
    words = [(v4[0]! << 8) | v4[1]!, (v4[2]! << 8) | v4[3]!]
  }
  const halves = tail.split('::')
  if (halves.length > 2) return undefined
  const parse = (half: string): number[] | undefined => {
    if (half === '') return []
    const out: number[] = []
    for (const word of half.split(':')) {
      if (!/^[0-9a-fA-F]{1,4}$/.test(word)) return undefined
      out.push(parseInt(word, 16))
    }
    return out
  }
  const head = parse(halves[0]!)
  const rest = halves.length === 2 ? parse(halves[1]!) : []
  if (!head || !rest) return undefined
  const missing = 8 - head.length - rest.length
  if (halves.length === 2 ? missing < 1 : missing !== 0) return undefined
  const all = [...head, ...new Array<number>(missing).fill(0), ...rest]
  if (words.length === 2) all.splice(6, 2, ...words)
  return all.flatMap((word) => [word >> 8, word & 0xff])
}

/**
 * The address as 16 bytes, or undefined if it is not an IP address. Accepts what peers and proxies
 * write: brackets (`[::1]`), a zone (`fe80::1%eth0`), a port after IPv4 (`10.0.0.1:443`) or brackets.
 */
export function parseAddress(input: string): Uint8Array | undefined {
  let text = input.trim()
  const bracketed = /^\[([^\]]+)\](?::\d+)?$/.exec(text)
  if (bracketed) text = bracketed[1]!
  else if (/^[\d.]+:\d+$/.test(text)) text = text.slice(0, text.indexOf(':'))
  const zone = text.indexOf('%')
  if (zone !== -1) text = text.slice(0, zone)
  const v4 = parseIPv4(text)
  if (v4) return Uint8Array.from([...V4_MAPPED_PREFIX, ...v4])
  const v6 = text.includes(':') ? parseIPv6(text) : undefined
  return v6 ? Uint8Array.from(v6) : undefined
}

/**
 * The address as the origin should see it: an IPv4-mapped IPv6 address (`::ffff:127.0.0.1`, as Node reports
 * an IPv4 peer on a dual-stack `::` socket) as plain IPv4, so logs and rate limits behind the proxy see one
 * spelling per client whatever the proxy listens on. Anything else is returned as is.
 */
export function plainAddress(address: string): string {
  if (!/^::ffff:/i.test(address)) return address
  const bytes = parseAddress(address)
  return bytes && bytes.slice(0, 12).every((byte, i) => byte === V4_MAPPED_PREFIX[i]) ? [...bytes.slice(12)].join('.') : address
}

/**
 * Parses `10.0.0.0/8`, `2001:db8::/32`, or a single address (a /32 or /128). Throws a plain Error saying
 * what is wrong, for the caller to prefix with the option's name.
 */
export function parseCidr(text: string): Cidr {
  const trimmed = text.trim()
  const slash = trimmed.indexOf('/')
  const addressText = slash === -1 ? trimmed : trimmed.slice(0, slash)
  const isV4 = parseIPv4(addressText) !== undefined
  const bytes = isV4 || addressText.includes(':') ? parseAddress(addressText) : undefined
  if (!bytes || addressText.startsWith('[')) {
    throw new Error(`${JSON.stringify(text)} is not an IP address or CIDR range (e.g. 10.0.0.0/8, 192.168.1.10, fd00::/8)`)
  }
  const max = isV4 ? 32 : 128
  let bits = max
  if (slash !== -1) {
    const prefix = trimmed.slice(slash + 1)
    if (!/^\d{1,3}$/.test(prefix) || Number(prefix) > max) {
      throw new Error(`${JSON.stringify(text)} has an invalid prefix length: expected /0 to /${max}`)
    }
    bits = Number(prefix)
  }
  const fullBits = isV4 ? bits + 96 : bits
  if (!hostBitsClear(bytes, fullBits)) {
    throw new Error(`${JSON.stringify(text)} has bits set after the /${bits} prefix: did you mean ${maskedText(bytes, fullBits, isV4, bits)}?`)
  }
  return { bytes, bits: fullBits, text: trimmed }
}

/** Whether `address` (16 bytes from {@link parseAddress}) lies in `range`. */
export function inCidr(address: Uint8Array, range: Cidr): boolean {
  const whole = range.bits >> 3
  for (let i = 0; i < whole; i++) if (address[i] !== range.bytes[i]) return false
  const rest = range.bits & 7
  if (rest === 0) return true
  const mask = (0xff << (8 - rest)) & 0xff
  return (address[whole]! & mask) === (range.bytes[whole]! & mask)
}

function hostBitsClear(bytes: Uint8Array, bits: number): boolean {
  for (let i = 0; i < 16; i++) {
    const keep = Math.max(0, Math.min(8, bits - i * 8))
    const mask = (0xff << (8 - keep)) & 0xff
    if ((bytes[i]! & ~mask & 0xff) !== 0) return false
  }
  return true
}

function maskedText(bytes: Uint8Array, bits: number, isV4: boolean, shownBits: number): string {
  const masked = bytes.map((byte, i) => byte & ((0xff << (8 - Math.max(0, Math.min(8, bits - i * 8)))) & 0xff))
  if (isV4) return `${[...masked.slice(12)].join('.')}/${shownBits}`
  const words: string[] = []
  for (let i = 0; i < 16; i += 2) words.push(((masked[i]! << 8) | masked[i + 1]!).toString(16))
  return `${words.join(':').replace(/(^|:)0(:0)+(:|$)/, '::')}/${shownBits}`
}
