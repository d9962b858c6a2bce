/**
 * @module
 * `GET /events/:id/preview`: an event's configuration as if it were on now — its own fields over the room's
 * current settings (options and runtime overrides), and which fields it inherits — as Cloudflare's event
 * "details" preview does. A suspended event is previewed too (with `suspended: true`): it would be ignored.
 */
import type { Hono } from 'hono'
import { HTTPException } from 'hono/http-exception'
import { EVENT_FIELDS } from '../admission/settings.ts'
import type { RoomHandle } from '../room/decision.ts'

export function eventPreviewRoutes(admin: Hono, room: RoomHandle): void {
  admin.get('/events/:id/preview', async (c) => {
    const now = room.options.clock()
    try {
      await room.settings.load(now) // the stored truth, not this worker's possibly older copy
    } catch (error) {
      const message = `the settings storage failed: ${(error as Error)?.message ?? error}`
      throw new HTTPException(503, { res: Response.json({ error: 'storage_unavailable', message }, { status: 503 }) })
    }
    const id = c.req.param('id')
    const event = room.settings.events().find((e) => e.id === id)
    if (!event) throw new HTTPException(404, { res: Response.json({ error: 'not_found', message: `no event with the id "${id}"` }, { status: 404 }) })
    const { template, ...settings } = room.settings.during(event)
    return c.json({
      event,
      settings: { ...settings, template: template ?? null },
      inherited: EVENT_FIELDS.filter((field) => event[field] == null),
      suspended: event.suspended === true,
    })
  })
}
