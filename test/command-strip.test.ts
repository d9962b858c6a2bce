/**
 * The origin's command headers (`Waiting-Room-Command`, `Cf-Waiting-Room-Command`) never reach the client,
 * whatever the middleware did with the request: bypassed by `bypass.paths`, not covered, suspended, decided
 * by another room, no room's route, admitted (new or session) — with commands enabled or off, in either
 * compatibility mode, and whatever casing the origin wrote the header name in.
 */
import { Hono } from 'hono'
import { describe, expect, it } from 'vitest'
import { waitingRoom } from '../src/index.ts'
import { START, TEST_SECRET } from './support/room-harness.ts'

const NAMES = ['Waiting-Room-Command', 'waiting-room-command', 'WAITING-ROOM-COMMAND', 'Cf-Waiting-Room-Command', 'cf-waiting-room-command', 'CF-WAITING-ROOM-COMMAND']
let seq = 0

function build(name: string, commands: boolean, compatibility: 'cloudflare' | 'default') {
  const id = `strip-${++seq}`
  const base = { compatibility, secret: TEST_SECRET, clock: () => START, newUsersPerMinute: 100, enabledOriginCommands: commands ? (['revoke'] as 'revoke'[]) : undefined }
  const app = new Hono()
  // Two rooms sharing the app: a site room on /site, a checkout room on /checkout; /elsewhere is no room's.
  app.use('*', waitingRoom({ ...base, roomId: `${id}-site`, routes: [{ path: '/site' }], cookie: { suffix: `${id}s` }, totalActiveUsers: 100, bypass: { paths: ['/site/static'] } }))
  app.use('*', waitingRoom({ ...base, roomId: `${id}-co`, routes: [{ path: '/checkout' }], cookie: { suffix: `${id}c` }, totalActiveUsers: 100, suspended: false }))
  const solo = new Hono()
  solo.use('*', waitingRoom({ ...base, roomId: `${id}-sus`, cookie: { suffix: `${id}x` }, suspended: true, totalActiveUsers: 1 }))
  for (const target of [app, solo]) target.get('*', (c) => c.text('origin', 200, { [name]: 'none' }))
  return { app, solo }
}

const cookieOf = (response: Response) => response.headers.get('set-cookie')?.split(';')[0]

describe('command headers never reach the client', () => {
  for (const compatibility of ['cloudflare', 'default'] as const) {
    for (const commands of [true, false]) {
      it(`${compatibility}, commands ${commands ? 'on' : 'off'}: every outcome × both names × casing`, async () => {
        for (const name of NAMES) {
          const { app, solo } = build(name, commands, compatibility)
          const answers: [string, Response][] = []
          answers.push(['bypass.paths', await app.request('/site/static/a.css')])
          answers.push(['no room route', await app.request('/elsewhere')])
          answers.push(['suspended', await solo.request('/')])
          const first = await app.request('/checkout')
          answers.push(['admitted (new), the other room steps aside', first])
          answers.push(['session', await app.request('/checkout/pay', { headers: { cookie: cookieOf(first)! } })])
          answers.push(['site room decides', await app.request('/site/page')])
          for (const [outcome, response] of answers) {
            expect(await response.text(), outcome).toBe('origin')
            expect(response.headers.get('waiting-room-command'), `${outcome} ${name}`).toBeNull()
            expect(response.headers.get('cf-waiting-room-command'), `${outcome} ${name}`).toBeNull()
          }
        }
      })
    }
  }

  it('a control: without the room the origin does send the header (the test can fail)', async () => {
    const app = new Hono()
    app.get('*', (c) => c.text('origin', 200, { 'Waiting-Room-Command': 'none' }))
    expect((await app.request('/')).headers.get('waiting-room-command')).toBe('none')
  })
})
