/// <reference types="node" />
/**
 * An origin answer's framing and transfer codings (issue 20 item 6, break20): Transfer-Encoding read as a list
 * whose last coding alone says chunked (src/proxy/transfer-codings.ts), chunk-size lines of any number of
 * digits with a bound on the size they state (src/proxy/h1.ts), and the codings besides chunked undone on both
 * the web and the node:zlib side — generated lists, sizes, splits and bodies against plain references.
 */
import { PassThrough } from 'node:stream'
import { deflateSync, gzipSync } from 'node:zlib'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { H1Reader, type H1Head } from '../src/proxy/h1.ts'
import { decodingInto } from '../src/proxy/node-answer.ts'
import { decodedBody, isChunked, rawTransferDecodings, transferCodings, transferDecodings, type TransferDecoding } from '../src/proxy/transfer-codings.ts'

const coding = fc.constantFrom('chunked', 'gzip', 'x-gzip', 'deflate', 'identity', 'compress', 'br', 'xchunked', 'x-chunked', 'notchunked', 'chunkedx')
const inCase = (text: string) => fc.array(fc.boolean(), { minLength: text.length, maxLength: text.length }).map((up) => [...text].map((ch, i) => (up[i] ? ch.toUpperCase() : ch)).join(''))
const element = fc.tuple(fc.constantFrom('', ' ', '\t'), coding.chain(inCase), fc.constantFrom('', ';q=1', ' ; a=b'), fc.constantFrom('', ' ')).map((parts) => parts.join(''))
const list = fc.array(fc.oneof(element, fc.constant('')), { minLength: 1, maxLength: 5 }).map((parts) => parts.join(','))

/** The list the plain way: split, cut parameters, trim, lower-case, drop empties. */
const plain = (value: string) => value.split(',').map((part) => part.split(';')[0]!.trim().toLowerCase()).filter((part) => part !== '')

describe('Transfer-Encoding lists (transfer-codings.ts)', () => {
  it('reads generated lists as the plain way does: chunked only when the last coding is exactly chunked', () => {
    fc.assert(fc.property(list, (value) => {
      const codings = plain(value)
      expect(transferCodings(value)).toEqual(codings)
      expect(isChunked(value)).toBe(codings.at(-1) === 'chunked')
      const rest = codings.at(-1) === 'chunked' ? codings.slice(0, -1) : codings
      const known: Record<string, TransferDecoding | null> = { gzip: 'gzip', 'x-gzip': 'gzip', deflate: 'deflate', identity: null }
      const decodings = rest.every((c) => c in known) ? rest.map((c) => known[c]).filter((d) => d !== null).reverse() : []
      expect(transferDecodings(value)).toEqual(decodings.length === 0 ? undefined : decodings)
      expect(rawTransferDecodings(['Content-Type', 'x', 'TRANSFER-encoding', value])).toEqual(transferDecodings(value))
    }), { numRuns: 2000, seed: 20 })
  })
})

/** Feeds `wire` to a reader in the given pieces; the head, body and end it reported, or the error it threw. */
function read(wire: Uint8Array, cuts: number[]): { head?: H1Head; body: string; ended: boolean; error?: string } {
  const out: { head?: H1Head; body: string; ended: boolean; error?: string } = { body: '', ended: false }
  const reader = new H1Reader({ head: (head) => void (out.head = head), data: (bytes) => void (out.body += Buffer.from(bytes).toString('latin1')), end: () => void (out.ended = true) }, 'GET')
  try {
    let at = 0
    for (const cut of [...cuts, wire.length]) {
      reader.feed(wire.subarray(at, cut))
      at = cut
    }
  } catch (error) {
    out.error = (error as Error).message
  }
  return out
}

const bytes = (text: string) => new Uint8Array(Buffer.from(text, 'latin1'))

describe('chunk-size lines (h1.ts)', () => {
  it('reads any number of leading zeros, in either case, with extensions, cut anywhere', () => {
    const chunk = fc.record({ size: fc.integer({ min: 1, max: 40 }), zeros: fc.integer({ min: 0, max: 40 }), upper: fc.boolean(), ext: fc.constantFrom('', ';a=b', ' ;x', '\t') })
    fc.assert(fc.property(fc.array(chunk, { minLength: 1, maxLength: 4 }), fc.integer({ min: 0, max: 30 }), fc.array(fc.nat(), { maxLength: 3 }), (chunks, lastZeros, cutSeeds) => {
      let wire = 'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n'
      let body = ''
      for (const [i, { size, zeros, upper, ext }] of chunks.entries()) {
        const hex = size.toString(16)
        const data = String.fromCharCode(97 + i).repeat(size)
        wire += `${'0'.repeat(zeros)}${upper ? hex.toUpperCase() : hex}${ext}\r\n${data}\r\n`
        body += data
      }
      wire += `${'0'.repeat(lastZeros + 1)}\r\n\r\n`
      const cuts = [...new Set(cutSeeds.map((seed) => seed % wire.length))].sort((a, b) => a - b)
      const got = read(bytes(wire), cuts)
      expect(got).toMatchObject({ body, ended: true })
      expect(got.error).toBeUndefined()
    }), { numRuns: 300, seed: 20 })
  })

  it('refuses a size above the bound, whatever its digits: before the head when it came with it (a 502), else mid-body', () => {
    const over = fc.oneof(fc.bigInt({ min: 2n ** 48n, max: 2n ** 80n }).map((n) => n.toString(16)), fc.constantFrom('1000000000000', 'f'.repeat(13), 'F'.repeat(200)))
    fc.assert(fc.property(over, fc.integer({ min: 0, max: 30 }), fc.boolean(), (hex, zeros, sameFeed) => {
      const head = 'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n'
      const wire = `${head}2\r\nok\r\n${'0'.repeat(zeros)}${hex}\r\nxx`
      const first = read(bytes(`${head}${'0'.repeat(zeros)}${hex}\r\nxx`), sameFeed ? [] : [head.length])
      expect(first.error).toMatch(/chunk size/)
      expect(first.head === undefined).toBe(sameFeed)
      const later = read(bytes(wire), [])
      expect(later).toMatchObject({ body: 'ok', ended: false })
      expect(later.error).toMatch(/chunk size/)
    }), { numRuns: 200, seed: 20 })
  })

  it('reads the largest size allowed (the count stays exact)', () => {
    const got = read(bytes(`HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n000${(2 ** 48 - 1).toString(16)}\r\nabc`), [])
    expect(got).toMatchObject({ body: 'abc', ended: false })
    expect(got.error).toBeUndefined()
  })
})

const TEXT = Buffer.from('hello, transfer codings '.repeat(50))
/** `text` with `decodings` applied in the order the origin would (the last undone first). */
const encode = (decodings: TransferDecoding[]) => decodings.reduceRight((data, d) => (d === 'gzip' ? gzipSync(data) : deflateSync(data)), TEXT as Buffer)
const decodingList = fc.array(fc.constantFrom<TransferDecoding>('gzip', 'deflate'), { minLength: 1, maxLength: 3 })

describe('transfer codings undone', () => {
  it('by web streams (fast path behind Bun.serve, node:http path without node-server): generated chains, fed in pieces', async () => {
    await fc.assert(fc.asyncProperty(decodingList, fc.integer({ min: 1, max: 97 }), async (decodings, piece) => {
      const sent = encode(decodings)
      const body = new ReadableStream<Uint8Array>({
        start(controller) {
          for (let at = 0; at < sent.length; at += piece) controller.enqueue(new Uint8Array(sent.subarray(at, at + piece)))
          controller.close()
        },
      })
      expect(Buffer.from(await new Response(decodedBody(body, decodings)).arrayBuffer())).toEqual(TEXT)
    }), { numRuns: 40, seed: 20 })
  })

  it('by node:zlib (the CLI\'s paths): generated chains, fed in pieces; bytes that do not decode break the client\'s body', async () => {
    await fc.assert(fc.asyncProperty(decodingList, fc.integer({ min: 1, max: 97 }), fc.boolean(), async (decodings, piece, corrupt) => {
      const sent = Buffer.from(encode(decodings))
      if (corrupt) sent.fill(0x55, 0, 4)
      const client = new PassThrough()
      const chunks: Buffer[] = []
      client.on('data', (chunk: Buffer) => chunks.push(chunk))
      const done = new Promise<string>((resolve) => {
        client.once('end', () => resolve('end'))
        client.once('close', () => resolve('closed'))
      })
      const into = decodingInto(decodings, client)
      for (let at = 0; at < sent.length; at += piece) into.write(sent.subarray(at, at + piece))
      into.end()
      const how = await done
      if (corrupt) expect(client.destroyed).toBe(true)
      else expect([how, Buffer.concat(chunks)]).toEqual(['end', TEXT])
    }), { numRuns: 40, seed: 20 })
  })
})
