/**
 * @module
 * `GET /events/:id/preview`: an event's configuration as if it were on now — its own fields over the room's
 * current settings (options and runtime overrides), and which fields it inherits — as Cloudflare's event
 * "details" preview does. A suspended event is previewed too (with `suspended: true`): it would be ignored.
 */
import type { Hono } from 'hono'
import { EVENT_FIELDS } from '../admission/settings.ts'
import type { RoomHandle } from '../room/decision.ts'
import { fail, fromStorage } from './http.ts'

export function eventPreviewRoutes(admin: Hono, room: RoomHandle): void {
  admin.get('/events/:id/preview', async (c) => {
    const now = room.options.clock()
    await fromStorage(room.settings.load(now)) // the stored truth, not this worker's possibly older copy
    const id = c.req.param('id')
    const event = room.settings.events().find((e) => e.id === id)
    if (!event) throw fail(404, 'not_found', `no event with the id "${id}"`)
    const { template, ...settings } = room.settings.during(event)
    return c.json({
      event,
      settings: { ...settings, template: template ?? null },
      inherited: EVENT_FIELDS.filter((field) => event[field] == null),
      suspended: event.suspended === true,
    })
  })
}
