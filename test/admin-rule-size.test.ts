/**
 * Rules that would crash or stall the admin API or every request: a body over the limit is a 413 in the admin
 * shape, a deep tree is refused before zod recurses (no stack overflow), a wide tree is refused by its count,
 * and the room's rules together stay under a total so judging a request stays cheap.
 */
import fc from 'fast-check'
import { Hono } from 'hono'
import { createStorage } from 'unstorage'
import { describe, expect, it } from 'vitest'
import { waitingRoom, waitingRoomAdmin } from '../src/index.ts'
import { memoryCoordinator } from '../adapters/memory/index.ts'
import { ADMIN_BODY_LIMIT } from '../src/admin/body-limit.ts'
import { conditionSize, MAX_CONDITIONS_PER_ROOM, MAX_CONDITIONS_PER_RULE, MAX_DEPTH } from '../src/rules/language.ts'

const TOKEN = 'rule-size-token-0123456789abcdef'
const auth = { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' }
const leaf = { path: { startsWith: '/x' } }

function admin() {
  const room = waitingRoom({ secret: 'rule-size-secret-0123456789-abcdefghijkl', coordinator: memoryCoordinator(), storage: createStorage(), roomId: `size-${Math.random()}`, totalActiveUsers: 5 })
  return new Hono().route('/_room', waitingRoomAdmin(room, { token: TOKEN }))
}
const postRule = (app: Hono, body: string) => app.request('/_room/rules', { method: 'POST', headers: auth, body })
/** Built as text: JSON.stringify of a 5000-deep object overflows the test's own stack. */
const nestNot = (depth: number): string => `${'{"not":'.repeat(depth)}${JSON.stringify(leaf)}${'}'.repeat(depth)}`
const wide = (width: number, levels: number): unknown => (levels === 0 ? leaf : { or: Array.from({ length: width }, () => wide(width, levels - 1)) })

describe('rule size', () => {
  it('a body over the limit is a 413 in the admin error shape (rules and settings)', async () => {
    const app = admin()
    const big = JSON.stringify({ id: 'big', when: wide(64, 3) })
    expect(big.length).toBeGreaterThan(ADMIN_BODY_LIMIT)
    const res = await postRule(app, big)
    expect(res.status).toBe(413)
    expect(await res.json()).toMatchObject({ error: 'payload_too_large' })
    const patch = await app.request('/_room/settings', { method: 'PATCH', headers: auth, body: `{"queueAll":false${' '.repeat(ADMIN_BODY_LIMIT)}}` })
    expect(patch.status).toBe(413)
  })

  it('nesting of any depth past the limit is a 400 naming `when`, never a 500', async () => {
    const app = admin()
    for (const depth of [MAX_DEPTH, MAX_DEPTH + 1, 50, 1000, 5000]) {
      const res = await postRule(app, `{"id":"d${depth}","when":${nestNot(depth)}}`)
      if (depth + 1 <= MAX_DEPTH) expect(res.status).toBe(201)
      else {
        expect(res.status).toBe(400)
        const json = (await res.json()) as { issues: { path: string }[] }
        expect(json.issues[0]!.path).toBe('when')
      }
    }
  })

  it('counts conditions without recursion: generated trees agree with a recursive count', () => {
    const tree: fc.Arbitrary<unknown> = fc.letrec((tie) => ({
      node: fc.oneof({ depthSize: 'small' }, fc.constant(leaf), fc.record({ not: tie('node') }), fc.record({ and: fc.array(tie('node'), { minLength: 1, maxLength: 5 }) }), fc.record({ or: fc.array(tie('node'), { minLength: 1, maxLength: 5 }) })),
    })).node
    const count = (n: any): number => 1 + (n.not ? count(n.not) : 0) + [...(n.and ?? []), ...(n.or ?? [])].reduce((s: number, c: unknown) => s + count(c), 0)
    for (const seed of [1, 2, 3]) {
      fc.assert(fc.property(tree, (t) => conditionSize(t, Number.POSITIVE_INFINITY).count === count(t)), { seed, numRuns: 200 })
    }
  })

  it('a rule over the per-rule count is a 400 naming `when`; rules over the per-room total are refused', async () => {
    const app = admin()
    const over = await postRule(app, JSON.stringify({ id: 'wide', when: { or: Array.from({ length: 64 }, () => ({ and: [leaf, leaf, leaf, leaf] })) } }))
    expect(over.status).toBe(400)
    expect(((await over.json()) as { issues: { path: string; message: string }[] }).issues[0]).toMatchObject({ path: 'when' })
    // Each rule: an `or` of 50 `and`s of 4 leaves = 251 conditions, just under the per-rule limit.
    const rule = (id: string) => JSON.stringify({ id, when: { or: Array.from({ length: 50 }, () => ({ and: [leaf, leaf, leaf, leaf] })) } })
    expect(conditionSize(JSON.parse(rule('x')).when, Infinity).count).toBeLessThanOrEqual(MAX_CONDITIONS_PER_RULE)
    const fits = Math.floor(MAX_CONDITIONS_PER_ROOM / 251)
    for (let i = 0; i < fits; i++) expect((await postRule(app, rule(`r${i}`))).status).toBe(201)
    const last = await postRule(app, rule('one-too-many'))
    expect(last.status).toBe(400)
    expect(((await last.json()) as { issues: { path: string }[] }).issues[0]!.path).toBe('when')
  })
})
