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
    const now = clock()
    const input = c.req.valid('json')
    await fromStorage(room.settings.load(now))
    const existing = room.settings.events()
    if (input.id !== undefined && existing.some((event) => event.id === input.id)) {
      throw fail(409, 'conflict', `an event with the id "${input.id}" already exists: delete it first`)
    }
    const events = await fromStorage(room.settings.setEvents([...existing, input], now))
    const before = new Set(existing.map((event) => event.id))
    return c.json({ event: events.find((event) => !before.has(event.id)) }, 201)
  })

  admin.delete('/events/:id', async (c) => {
    const now = clock()
    const id = c.req.param('id')
    await fromStorage(room.settings.load(now))
    const existing = room.settings.events()
    const event = existing.find((e) => e.id === id)
    if (!event) throw fail(404, 'not_found', `no event with the id "${id}"`)
    await fromStorage(room.settings.setEvents(existing.filter((e) => e !== event), now))
    return c.json({ deleted: event })
  })
}
