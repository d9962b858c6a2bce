/**
 * `GET /openapi.json` (issue 18, item 5): every route of the admin app is in the document and nothing else is;
 * the document's request schemas accept and refuse what the routes accept and refuse — generated inputs
 * (fast-check) sent to the real routes and checked against the document with a small JSON Schema checker
 * (the keywords zod's output uses; no validator package is installed, and none is needed for these).
 */
import fc from 'fast-check'
import { Hono } from 'hono'
import { createStorage } from 'unstorage'
import { describe, expect, it } from 'vitest'
import { waitingRoomAdmin } from '../src/admin/admin.ts'
import { waitingRoom } from '../src/room/middleware.ts'
import { START, TEST_SECRET } from './support/room-harness.ts'

const TOKEN = 'openapi-token-0123456789abcdef'
const auth = { authorization: `Bearer ${TOKEN}` }
type Schema = Record<string, any>

function build() {
  const room = waitingRoom({ secret: TEST_SECRET, clock: () => START, storage: createStorage() })
  const admin = waitingRoomAdmin(room, { token: TOKEN })
  const app = new Hono()
  app.route('/_room', admin)
  return { admin, app }
}

/** JSON Schema (draft 2020-12), the keywords zod emits: type, properties, required, additionalProperties, enum, const, anyOf, bounds, pattern, $ref. */
function accepts(schema: Schema, value: unknown, root: Schema): boolean {
  if (schema.$ref) return accepts(root.components.schemas[schema.$ref.split('/').pop()], value, root)
  if (schema.anyOf && !schema.anyOf.some((s: Schema) => accepts(s, value, root))) return false
  if ('const' in schema && value !== schema.const) return false
  if (schema.enum && !schema.enum.includes(value)) return false
  if (schema.type) {
    const types: string[] = [schema.type].flat()
    const typeOf = (v: unknown) =>
      v === null ? ['null'] : Array.isArray(v) ? ['array'] : typeof v === 'number' ? (Number.isInteger(v) ? ['integer', 'number'] : ['number']) : [typeof v]
    if (!typeOf(value).some((t) => types.includes(t))) return false
  }
  if (typeof value === 'number') {
    if (schema.minimum !== undefined && value < schema.minimum) return false
    if (schema.maximum !== undefined && value > schema.maximum) return false
  }
  if (typeof value === 'string') {
    if (schema.pattern && !new RegExp(schema.pattern, 'u').test(value)) return false
    if (schema.minLength !== undefined && [...value].length < schema.minLength) return false
    if (schema.maxLength !== undefined && [...value].length > schema.maxLength) return false
  }
  if (value !== null && typeof value === 'object' && !Array.isArray(value) && (schema.properties || schema.additionalProperties === false)) {
    const object = value as Record<string, unknown>
    for (const key of schema.required ?? []) if (!(key in object)) return false
    for (const [key, v] of Object.entries(object)) {
      const property = schema.properties?.[key]
      if (!property) {
        if (schema.additionalProperties === false) return false
      } else if (!accepts(property, v, root)) return false
    }
  }
  return true
}

async function documentOf(app: Hono): Promise<Schema> {
  const response = await app.request('/_room/openapi.json', { headers: auth })
  expect(response.status).toBe(200)
  return response.json()
}

describe('GET /openapi.json', () => {
  it('is OpenAPI 3.1 and lists exactly the admin routes, each with its responses', async () => {
    const { admin, app } = build()
    const doc = await documentOf(app)
    expect(doc.openapi).toBe('3.1.0')
    // '' is the dashboard's twin of '/' (so `app.route` answers `/_room/` too): one path in the document.
    const routes = new Set(admin.routes.filter((r) => r.path !== '/*' && r.path !== '').map((r) => `${r.method.toLowerCase()} ${r.path.replace(/:(\w+)/g, '{$1}')}`))
    const documented = new Set(Object.entries(doc.paths as Record<string, Schema>).flatMap(([path, item]) => Object.keys(item).map((method) => `${method} ${path}`)))
    expect([...routes].sort()).toEqual([...documented].sort())
    expect(routes.size).toBeGreaterThanOrEqual(13)
    for (const [path, item] of Object.entries(doc.paths as Record<string, Schema>)) {
      for (const [method, operation] of Object.entries(item as Schema)) {
        expect(Object.keys(operation.responses), `${method} ${path}`).not.toHaveLength(0)
        for (const name of path.match(/\{(\w+)\}/g) ?? []) {
          expect(operation.parameters?.some((p: Schema) => p.in === 'path' && `{${p.name}}` === name), `${method} ${path} ${name}`).toBe(true)
        }
      }
    }
    expect((await app.request('/_room/openapi.json')).status).toBe(401) // behind the token like the data it describes
  })

  it('its SettingsPatch schema accepts exactly what PATCH /settings accepts', async () => {
    const { app } = build()
    const doc = await documentOf(app)
    const schema = doc.paths['/settings'].patch.requestBody.content['application/json'].schema
    const value = fc.oneof(fc.integer({ min: -5, max: 40 }), fc.constantFrom(0, 1, 30, 31, 10_000_000, 10_000_001, 200, 202, 429, 500, 1.5), fc.boolean(), fc.constant(null),
      fc.constantFrom('fifo', 'random', 'passthrough', 'reject', 'lifo', '5', ''))
    const key = fc.constantFrom('totalActiveUsers', 'newUsersPerMinute', 'sessionDurationMinutes', 'disableSessionRenewal', 'queueingMethod', 'queueAll', 'suspended', 'queueingStatusCode', 'unknown')
    let accepted = 0
    await fc.assert(
      fc.asyncProperty(fc.dictionary(key, value, { maxKeys: 3 }), async (patch) => {
        const response = await app.request('/_room/settings', { method: 'PATCH', headers: { ...auth, 'content-type': 'application/json' }, body: JSON.stringify(patch) })
        expect([200, 400]).toContain(response.status)
        if (response.status === 200) accepted++
        expect(accepts(schema, patch, doc), JSON.stringify(patch)).toBe(response.status === 200)
      }),
      { numRuns: 300, seed: 18 },
    )
    expect(accepted).toBeGreaterThan(20) // both sides of the line were tried
  })

  it('its NewEvent schema accepts what POST /events accepts (times in order), and refuses what it refuses', async () => {
    const { app } = build()
    const doc = await documentOf(app)
    const schema = doc.paths['/events'].post.requestBody.content['application/json'].schema
    // Mostly valid values (so both answers are common), with the invalid ones mixed in.
    const mostly = <T, U>(valid: T[], invalid: U[]) => fc.oneof({ arbitrary: fc.constantFrom(...valid), weight: 5 }, { arbitrary: fc.constantFrom(...invalid), weight: 1 })
    const optional = {
      id: mostly(['a', 'sale-1', 'x.y_z'], ['bad id', '', 'x'.repeat(65)]),
      name: mostly(['Launch', ''], ['x'.repeat(201), 5]),
      totalActiveUsers: mostly([1, 50, null], [0, 2.5, '10']),
      newUsersPerMinute: mostly([5, 100, null], [0, -1]),
      queueingMethod: mostly(['fifo', 'reject', null], ['lifo']),
      shuffleAtEventStart: mostly([true, false, null], ['yes']),
      sessionDurationMinutes: mostly([1, 30], [31, 0]),
      unknown: fc.constant(1),
    }
    const start = mostly([START + 60_000, new Date(START + 60_000).toISOString(), '2026-11-30T12:01:00+01:00'], [-5, 'tomorrow', '2026-11-30T12:01:00'])
    let accepted = 0
    await fc.assert(
      fc.asyncProperty(fc.record(optional, { requiredKeys: [] }).map(({ unknown, ...rest }) => (unknown !== undefined && rest.id === 'a' ? { ...rest, unknown } : rest)), start, async (fields, eventStartTime) => {
        const event: Record<string, unknown> = { ...fields, eventStartTime, eventEndTime: START + 10 * 60_000 }
        const response = await app.request('/_room/events', { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: JSON.stringify(event) })
        expect([201, 400]).toContain(response.status)
        if (response.status === 201) {
          accepted++
          const { event: created } = await response.json()
          await app.request(`/_room/events/${created.id}`, { method: 'DELETE', headers: auth }) // no 409 for the next
        }
        // Rules the document states in words (NewEvent's description), not in JSON Schema: the route refuses them.
        const pairedLimits = (event.totalActiveUsers == null) === (event.newUsersPerMinute == null)
        const shuffleWithPrequeue = event.shuffleAtEventStart !== true || event.prequeueStartTime != null
        if (!pairedLimits || !shuffleWithPrequeue) expect(response.status).toBe(400)
        else expect(accepts(schema, event, doc), JSON.stringify(event)).toBe(response.status === 201)
      }),
      { numRuns: 300, seed: 18 },
    )
    expect(accepted).toBeGreaterThan(5)
    // The rules JSON Schema cannot hold are refused by the route and said in the document.
    const late = { eventStartTime: START + 120_000, eventEndTime: START + 60_000 }
    expect(accepts(schema, late, doc)).toBe(true)
    expect((await app.request('/_room/events', { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: JSON.stringify(late) })).status).toBe(400)
    expect(doc.components.schemas.NewEvent.description).toMatch(/eventEndTime after eventStartTime/)
    expect(doc.components.schemas.NewEvent.description).toMatch(/set together/)
    expect(doc.components.schemas.NewEvent.description).toMatch(/shuffleAtEventStart only with a prequeueStartTime/)
  })

  it('its Preview schema and query parameters match POST and GET /preview', async () => {
    const { app } = build()
    const doc = await documentOf(app)
    const schema = doc.paths['/preview'].post.requestBody.content['application/json'].schema
    const field = fc.constantFrom('waitTime', 'queueIsFull', 'refreshIntervalSeconds', 'queueingMethod', 'waitTimeFormatted', 'lastUpdated', 'nope')
    const value = fc.constantFrom(0, 5, -1, 301, 2.5, true, 'true', 'maybe', '12', 'fifo', 'lifo', '2026-11-30T12:00:00Z', null)
    await fc.assert(
      fc.asyncProperty(fc.dictionary(field, value, { maxKeys: 2 }), async (body) => {
        const response = await app.request('/_room/preview', { method: 'POST', headers: { ...auth, 'content-type': 'application/json', accept: 'application/json' }, body: JSON.stringify(body) })
        expect([200, 400]).toContain(response.status)
        expect(accepts(schema, body, doc), JSON.stringify(body)).toBe(response.status === 200)
      }),
      { numRuns: 200, seed: 18 },
    )
    const parameters = doc.paths['/preview'].get.parameters.map((p: Schema) => p.name)
    expect(parameters).toEqual(expect.arrayContaining(['language', 'waitTime', 'queueingMethod']))
    expect(doc.paths['/analytics'].get.parameters.map((p: Schema) => p.name).sort()).toEqual(['from', 'step', 'to'])
  })
})
