/**
 * @module
 * `GET|POST /rules`, `DELETE /rules/:id`: the room's runtime bypass rules (the language in `src/rules/`),
 * kept in its settings storage and applied by every worker within one settings refresh. Each rule's hits on
 * this worker are in `GET /rules` and in `/metrics` (`<prefix>_rule_hits_total{rule}`).
 *
 * @example
 * ```sh
 * curl -X POST -H 'Authorization: Bearer …' -H 'Content-Type: application/json' https://example.com/_room/rules \
 *   -d '{"id":"office","when":{"and":[{"ip":["203.0.113.0/24","2001:db8::/32"]},{"not":{"path":{"startsWith":"/checkout"}}}]}}'
 * ```
 */
import { zValidator } from '@hono/zod-validator'
import type { Hono } from 'hono'
import type { RoomHandle } from '../room/decision.ts'
import { ruleSchema } from '../rules/language.ts'
import { fail, fromStorage, requireJson } from './http.ts'
import { validationHook } from './validation.ts'

export function ruleRoutes(admin: Hono, room: RoomHandle): void {
  const clock = room.options.clock
  const withHits = () => room.rules.rules().map((rule) => ({ ...rule, hits: room.rules.hits.get(rule.id) ?? 0 }))

  admin.get('/rules', async (c) => {
    await fromStorage(room.rules.load(clock()))
    return c.json({ rules: withHits() })
  })

  admin.post('/rules', requireJson, zValidator('json', ruleSchema, validationHook), async (c) => {
    const rule = c.req.valid('json')
    await fromStorage(room.rules.add(rule, clock()))
    return c.json({ rule }, 201)
  })

  admin.delete('/rules/:id', async (c) => {
    const id = c.req.param('id')
    const deleted = await fromStorage(room.rules.remove(id, clock()))
    if (!deleted) throw fail(404, 'not_found', `no rule with the id "${id}"`)
    return c.json({ deleted })
  })
}
