/**
 * Several rooms, each mounted on a prefix (src/room/registry.ts): a room ranks by the path it is mounted on
 * — `app.use('/p/*', room)`, `app.route('/p', sub)` with `sub.use('*', room)`, nested `app.route`, a
 * `basePath` sub-app, `:param` segments — as well as by its own routes. Generated rooms (open or full), mount
 * kinds, prefixes and mount orders; for each generated request the reference is: the covering rooms of the
 * highest score decide, and a request reaches the handler only if every one of them admits it. In particular
 * a full room more specific than an open catch-all mounted first is never skipped (break14b several rooms),
 * and an ambiguous tie never skips the full room (fail-closed).
 */
import fc from 'fast-check'
import { Hono } from 'hono'
import { describe, expect, it } from 'vitest'
import { waitingRoom } from '../src/index.ts'
import { START, TEST_SECRET } from './support/room-harness.ts'

type Kind = 'use' | 'route' | 'nested' | 'basePath'
interface Spec { kind: Kind; prefix: string[]; full: boolean }

const segment = fc.constantFrom('a', 'b', ':p')
const specArb = fc.record({ kind: fc.constantFrom<Kind>('use', 'route', 'nested', 'basePath'), prefix: fc.array(segment, { maxLength: 2 }), full: fc.boolean() })
  // Nesting needs two segments to split between the outer and the inner app.
  .map((s) => (s.kind === 'nested' && s.prefix.length < 2 ? { ...s, kind: 'route' as Kind } : s))
const requestArb = fc.array(fc.constantFrom('a', 'b', 'c'), { maxLength: 3 }).map((s) => `/${s.join('/')}`)
let seq = 0

function mount(app: Hono, spec: Spec, room: ReturnType<typeof waitingRoom>) {
  const path = spec.prefix.map((s) => `/${s}`).join('')
  if (spec.kind === 'use' || path === '') return void app.use(path === '' ? '*' : `${path}/*`, room)
  if (spec.kind === 'route') {
    const sub = new Hono()
    sub.use('*', room)
    return void app.route(path, sub)
  }
  if (spec.kind === 'basePath') {
    const sub = new Hono().basePath(path)
    sub.use('*', room)
    return void app.route('/', sub)
  }
  const inner = new Hono()
  inner.use('*', room)
  const middle = new Hono()
  middle.route(`/${spec.prefix[1]}`, inner)
  app.route(`/${spec.prefix[0]}`, middle)
}

/** The reference: the score of a room's mount for a path (undefined: Hono does not route the path to it). */
function scoreOf(spec: Spec, path: string): number | undefined {
  const parts = path.split('/').slice(1).filter((s) => s !== '')
  if (parts.length < spec.prefix.length) return undefined
  let score = 0
  for (let i = 0; i < spec.prefix.length; i++) {
    const want = spec.prefix[i]!
    if (want.startsWith(':')) score += 1
    else if (want === parts[i]) score += 2
    else return undefined
  }
  return score * 2
}

describe('several rooms mounted on prefixes: the most specific covering rooms decide', () => {
  it.each([3, 17, 2026])('generated mounts, orders and requests (seed %i)', async (seed) => {
    await fc.assert(
      fc.asyncProperty(fc.array(specArb, { minLength: 2, maxLength: 4 }), fc.array(requestArb, { minLength: 1, maxLength: 5 }), async (specs, requests) => {
        const app = new Hono()
        specs.forEach((spec, i) => {
          const id = `mnt${++seq}`
          const capacity = spec.full ? { queueAll: true } : { totalActiveUsers: 1_000_000, newUsersPerMinute: 1_000_000 }
          mount(app, spec, waitingRoom({ roomId: id, cookie: { suffix: `${id}x${i}` }, secret: TEST_SECRET, clock: () => START, ...capacity }))
        })
        app.all('*', (c) => c.text('REACHED'))
        for (const path of requests) {
          const scores = specs.map((spec) => scoreOf(spec, path))
          const top = Math.max(-1, ...scores.filter((s): s is number => s !== undefined))
          const deciders = specs.filter((_, i) => scores[i] === top)
          const reached = (await (await app.request(`http://shop.test${path}`)).text()) === 'REACHED'
          expect(reached, `${path} with ${JSON.stringify(specs)}`).toBe(deciders.every((spec) => !spec.full))
        }
      }),
      { numRuns: 80, seed },
    )
  })

  it('an open site room mounted first never decides for a full room on a prefix, in any of the mount kinds', async () => {
    for (const kind of ['use', 'route', 'nested', 'basePath'] as const) {
      const app = new Hono()
      app.use('*', waitingRoom({ roomId: `site${++seq}`, cookie: { suffix: `s${seq}` }, secret: TEST_SECRET, clock: () => START, totalActiveUsers: 1_000_000, newUsersPerMinute: 1_000_000 }))
      mount(app, { kind, prefix: ['checkout', 'v1'], full: true }, waitingRoom({ roomId: `co${seq}`, cookie: { suffix: `c${seq}` }, secret: TEST_SECRET, clock: () => START, queueAll: true }))
      app.all('*', (c) => c.text('REACHED'))
      expect(await (await app.request('http://shop.test/checkout/v1/pay')).text(), kind).not.toBe('REACHED')
      expect(await (await app.request('http://shop.test/home')).text(), kind).toBe('REACHED')
    }
  })
})
