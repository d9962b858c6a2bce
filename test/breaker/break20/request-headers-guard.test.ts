/// <reference types="node" />
/**
 * break20 — HELD (guard): the origin gets the client's request header lines as sent. Generated header sets
 * (4 seeds × 12 requests, fast path and node:http path): names in odd case, repeats, values with Latin-1 bytes
 * (0x80-0xff), tabs and padding, mixed with lines that must not cross — hop-by-hop (TE, Keep-Alive, Upgrade,
 * Proxy-*), names a `Connection` line lists, forwarding claims (X-Forwarded-*, Forwarded, X-Real-IP,
 * True-Client-IP) and `Waiting-Room-Command` in any case. The CLI on Node and on Bun: the origin's lines between
 * Host and X-Forwarded-For are exactly the client's passing lines, byte for byte. Bun.serve: as the README says
 * (names lower-cased, repeats merged with ", ", Bun's order), the same names and bytes.
 */
import { describe, expect, it } from 'vitest'
import { raw } from '../breakh1/helpers.ts'
import { proxied, seededRandom, TARGETS } from './targets.ts'


const DROPPED = ['TE: trailers', 'Keep-Alive: timeout=5', 'Proxy-Authorization: Basic eA==', 'X-Forwarded-For: 6.6.6.6', 'Forwarded: for=6.6.6.6;proto=https', 'X-Forwarded-Proto: https', 'X-Forwarded-Host: evil.example', 'X-Real-IP: 6.6.6.6', 'True-Client-IP: 6.6.6.6', 'Waiting-Room-Command: revoke', 'wAITING-rOOM-cOMMAND: revoke', 'Cf-Waiting-Room-Command: revoke']

/** A client's header lines: [line, passes?] in order, and the Connection line naming some to drop. */
function headerSet(random: () => number): [string, boolean][] {
  const pick = <T>(xs: T[]) => xs[Math.floor(random() * xs.length)]!
  const oddCase = (s: string) => [...s].map((ch) => (random() < 0.5 ? ch.toUpperCase() : ch.toLowerCase())).join('')
  const names = Array.from({ length: 3 + Math.floor(random() * 5) }, (_, i) => oddCase(`x-app-${i}-${Math.floor(random() * 1000)}`))
  const lines: [string, boolean][] = []
  for (let i = 0; i < 4 + Math.floor(random() * 10); i++) {
    const r = random()
    if (r < 0.2) lines.push([pick(DROPPED), false])
    else if (r < 0.3) lines.push([`${oddCase('x-hop')}: named`, false]) // named by the Connection line below
    else {
      const bytes = Array.from({ length: 1 + Math.floor(random() * 12) }, () => (random() < 0.3 ? String.fromCharCode(0x80 + Math.floor(random() * 128)) : random() < 0.1 ? '\t' : String.fromCharCode(0x21 + Math.floor(random() * 94))))
      const value = bytes.join('').replace(/^\t+|\t+$/g, '') || 'v'
      lines.push([`${pick(names)}: ${value}`, true])
    }
  }
  lines.push(['Connection: X-Hop, close', false])
  return lines
}

/** The lines of an origin's head after Host and before X-Forwarded-For, Content-Length aside. */
function passedLines(head: string): string[] {
  const lines = head.split('\r\n').slice(1)
  const end = lines.findIndex((l) => l.startsWith('X-Forwarded-For: '))
  return lines.slice(0, end === -1 ? lines.length : end).filter((l) => !/^(host|cookie|content-length):/i.test(l))
}

/** As Bun's Request holds them: lower-case names, repeats merged, sorted by name. */
function asBunHolds(lines: string[]): string[] {
  const merged = new Map<string, string[]>()
  for (const line of lines) {
    const at = line.indexOf(':')
    const name = line.slice(0, at).toLowerCase()
    merged.set(name, [...(merged.get(name) ?? []), line.slice(at + 1).replace(/^[ \t]+|[ \t]+$/g, '')]) // OWS only: JS trim() would eat NBSP and NEL
  }
  return [...merged].map(([name, values]) => `${name}: ${values.join(', ')}`).sort()
}

for (const target of TARGETS) {
  describe(`break20 request header lines reach the origin as sent (${target})`, () => {
    const p = proxied(target, (socket) => void socket.write('HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok'))

    for (const seed of [1, 2, 3, 4]) {
      for (const body of target === 'bun-serve' ? [false] : [false, true]) {
        it(`seed ${seed}, ${body ? 'with a body (node:http)' : 'bodiless (fast path)'}`, async () => {
          const random = seededRandom(`break20-headers-${seed}-${body}`)
          for (let n = 0; n < 12; n++) {
            const set = headerSet(random)
            const before = p.origin.heads.length
            const request = `${body ? 'POST' : 'GET'} /h?n=${n} HTTP/1.1\r\nHost: shop.example\r\nCookie: __wroom=${p.ticket}\r\n${set.map(([l]) => `${l}\r\n`).join('')}${body ? 'Content-Length: 1\r\n' : ''}\r\n${body ? 'z' : ''}`
            const answer = await raw(p.port, Buffer.from(request, 'latin1'), 300)
            expect(answer.split('\r\n')[0]).toBe('HTTP/1.1 200 OK')
            const heads = p.origin.heads.slice(before)
            expect(heads.length).toBe(1)
            const want = set.filter(([, passes]) => passes).map(([l]) => l.replace(/[ \t]+$/, ''))
            const got = passedLines(heads[0]![1])
            if (target === 'bun-serve') expect(asBunHolds(got)).toEqual(asBunHolds(want))
            else expect(got).toEqual(want)
          }
        }, 30_000)
      }
    }
  })
}
