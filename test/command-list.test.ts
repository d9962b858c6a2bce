/**
 * An origin's command header is a comma-separated list of tokens (src/room/pipeline/origin-command.ts): sent
 * on several lines it arrives joined (`revoke, revoke`), and any token `revoke` — in any case, with any
 * whitespace — revokes; a list without one does not. Generated lists and line splits, on the middleware, for
 * `Waiting-Room-Command` and (in compatibility: 'cloudflare') `Cf-Waiting-Room-Command`. The same through the
 * CLI proxy: test/breaker/break14b/origin-commands.test.ts ("twice").
 */
import fc from 'fast-check'
import { Hono } from 'hono'
import { describe, expect, it } from 'vitest'
import { waitingRoom } from '../src/index.ts'
import { commandsRevoke } from '../src/room/pipeline/origin-command.ts'
import { START, TEST_SECRET } from './support/room-harness.ts'

const spelled = fc.tuple(fc.constantFrom('revoke', 'REVOKE', 'Revoke', 'rEvOkE'), fc.constantFrom('', ' ', '\t', '  ')).map(([word, pad]) => `${pad}${word}${pad}`)
const other = fc.constantFrom('none', 'revoked', 'revoke-all', 'norevoke', '', ' ', 'x=revoke', '"revoke"')
const tokens = fc.array(fc.oneof(spelled, other), { minLength: 1, maxLength: 5 })
/** The tokens split over 1..n header lines (each line a comma-joined run). */
const linesOf = (list: string[], cuts: number[]) => {
  const lines: string[] = []
  let from = 0
  for (const cut of [...new Set(cuts.map((c) => c % list.length))].sort((a, b) => a - b).concat(list.length)) {
    if (cut > from) lines.push(list.slice(from, cut).join(','))
    from = Math.max(from, cut)
  }
  return lines
}
const revokes = (list: string[]) => list.some((t) => t.trim().toLowerCase() === 'revoke')
let seq = 0

describe('origin command: a list of tokens', () => {
  it('commandsRevoke: any trimmed, case-insensitive revoke token', () => {
    fc.assert(fc.property(tokens, (list) => commandsRevoke(list.join(',')) === revokes(list)), { numRuns: 500 })
    expect(commandsRevoke('revoke, revoke')).toBe(true)
    expect(commandsRevoke(null)).toBe(false)
  })

  for (const [compatibility, name] of [['default', 'Waiting-Room-Command'], ['cloudflare', 'Cf-Waiting-Room-Command']] as const) {
    it(`${compatibility}: ${name} on several lines ends the session iff a token is revoke`, async () => {
      await fc.assert(
        fc.asyncProperty(tokens, fc.array(fc.nat(), { maxLength: 4 }), async (list, cuts) => {
          const lines = linesOf(list, cuts)
          const app = new Hono()
          app.use('*', waitingRoom({ compatibility, roomId: `list-${++seq}`, cookie: { suffix: `l${seq}` }, secret: TEST_SECRET, clock: () => START, totalActiveUsers: 10, newUsersPerMinute: 10, enabledOriginCommands: ['revoke'] }))
          app.get('/a', (c) => c.text('origin'))
          app.get('/b', () => {
            const headers = new Headers()
            for (const line of lines) headers.append(name, line)
            return new Response('origin', { headers })
          })
          const first = await app.request('/a')
          const cookie = first.headers.get('set-cookie')!.split(';')[0]!
          const res = await app.request('/b', { headers: { cookie } })
          expect(await res.text()).toBe('origin')
          expect(res.headers.get(name)).toBeNull()
          const cleared = /max-age=0/i.test(res.headers.get('set-cookie') ?? '')
          expect(cleared, JSON.stringify(lines)).toBe(revokes(list))
        }),
        { numRuns: 60 },
      )
    })
  }
})
