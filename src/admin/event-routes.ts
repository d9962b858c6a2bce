/**
 * @module
 * The room's scheduled events on the admin API: `GET|POST /events`, `DELETE /events/:id`, and with them
 * `GET /events/:id/preview` (./event-preview.ts), `GET /events/:id/report` and `GET /analytics` (./analytics.ts).
 */
import type { Hono } from 'hono'
import { zValidator } from '@hono/zod-validator'
import { eventIssues, eventSchema } from '../admission/events.ts'
import type { RoomHandle } from '../room/decision.ts'
import { analyticsRoutes } from './analytics.ts'
import { eventPreviewRoutes } from './event-preview.ts'
import { fail, fromStorage, requireJson } from './http.ts'
import { validationHook } from './validation.ts'

/** An event as POST /events takes it: the checks that need both times are done here too, so they name their field. */
const newEventSchema = eventSchema.superRefine((event, ctx) => {
  for (const issue of eventIssues(event)) ctx.addIssue({ code: 'custom', path: [issue.path], message: issue.message })
})

/** `GET|POST /events`, `DELETE /events/:id`, `GET /events/:id/report` and `GET /analytics`: the room's events and history. */
export function eventRoutes(admin: Hono, room: RoomHandle): void {
  const clock = room.options.clock
  admin.route('/', analyticsRoutes(room)) // GET /analytics, GET /events/:id/report
  eventPreviewRoutes(admin, room) // GET /events/:id/preview
  admin.get('/events', async (c) => {
    await fromStorage(room.settings.load(clock()))
    return c.json({ events: room.settings.events() })
  })

  admin.post('/events', requireJson, zValidator('json', newEventSchema, validationHook), async (c) => {
    const event = await fromStorage(room.settings.addEvent(c.req.valid('json'), clock()))
    return c.json({ event }, 201)
  })

  // Works on the stored entry whatever it holds: an event the loader skips (invalid) can still be deleted.
  admin.delete('/events/:id', async (c) => {
    const id = c.req.param('id')
    const deleted = await fromStorage(room.settings.removeEvent(id, clock()))
    if (deleted === undefined) throw fail(404, 'not_found', `no event with the id "${id}"`)
    return c.json({ deleted })
  })
}
