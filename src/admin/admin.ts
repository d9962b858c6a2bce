/**
 * @module
 * `waitingRoomAdmin(room, { token })`: a Hono sub-app to watch and steer a running room — its status,
 * runtime settings and scheduled events (persisted in the room's storage, seen by every worker within one
 * refresh), Prometheus metrics, and queue page previews. Every route needs the bearer token.
 */
import { Hono, type Context } from 'hono'
import { bearerAuth } from 'hono/bearer-auth'
import { HTTPException } from 'hono/http-exception'
import { zValidator } from '@hono/zod-validator'
import { roomMetricFamilies, type RoomView } from './metrics.ts'
import { resolveAdminOptions, type WaitingRoomAdminOptions } from './options.ts'
import { previewSchema, previewVariables, type PreviewInput } from './preview.ts'
import { previewChallenge } from '../challenge/preview.ts'
import { roomStatus, statusName } from './status.ts'
import { invalid, validationHook } from './validation.ts'
import { WaitingRoomError } from '../errors.ts'
import { messagesFor } from '../page/messages.ts'
import type { RoomHandle } from '../room/decision.ts'
import { PROMETHEUS_CONTENT_TYPE, renderPrometheus } from './prometheus.ts'
import { renderQueuePage } from '../page/queue-page.ts'
import { settingsPatchSchema } from '../admission/settings.ts'
import { eventRoutes } from './event-routes.ts'
import { fail, fromStorage, requireJson } from './http.ts'
import { ruleRoutes } from './rules.ts'
import { adminBodyLimit } from './body-limit.ts'
import { finishAdmin, publicRoutes } from './dashboard/routes.ts'

export type { WaitingRoomAdminOptions } from './options.ts'
export type { RoomStatus, RoomStatusName } from './status.ts'


/**
 * The admin API of a room, as a Hono app to mount where you like, before or after `waitingRoom()`: the
 * room lets its requests through (../room/admin-routes.ts). Routes: `GET /status`, `GET|PATCH /settings`,
 * `GET|POST /events`, `DELETE /events/:id`, `GET /events/:id/report`, `GET /analytics`, `GET /metrics`
 * (Prometheus), `GET|POST /preview`, `GET /openapi.json`, and the dashboard page at `GET /`.
 *
 * @example
 * ```ts
 * import { Hono } from 'hono'
 * import { waitingRoom, waitingRoomAdmin } from 'hono-waiting-room'
 *
 * const room = waitingRoom({ totalActiveUsers: 500, storage })
 * const app = new Hono()
 * app.route('/_room', waitingRoomAdmin(room, { token: env.WAITING_ROOM_ADMIN_TOKEN }))
 * app.use('/*', room)
 * // curl -X PATCH -H 'Authorization: Bearer …' -H 'Content-Type: application/json' \
 * //   -d '{"totalActiveUsers":800}' https://example.com/_room/settings
 * ```
 */
export function waitingRoomAdmin(middleware: { readonly room: RoomHandle }, options: WaitingRoomAdminOptions): Hono {
  const room = middleware?.room
  if (!room || typeof room.status !== 'function' || !room.settings) {
    throw new WaitingRoomError('ERR_WR_OPTIONS', 'waitingRoomAdmin: expected the value returned by waitingRoom() as the first argument')
  }
  const o = resolveAdminOptions(options)
  const clock = room.options.clock
  const challenge = `Bearer realm="${o.realm.replace(/[\\"]/g, '\\$&')}"`
  const unauthorized = { error: 'unauthorized', message: 'send Authorization: Bearer <admin token>' }

  /** The room's state now; the coordinator being unreachable is a 503, whatever the adapter threw. */
  const viewOf = async (c: Context): Promise<RoomView> => {
    try {
      const { settings, snapshot, plan } = await room.status(c)
      return { settings, snapshot, plan, status: statusName(settings, snapshot, plan) }
    } catch (error) {
      throw fail(503, 'coordinator_unavailable', `the coordinator failed: ${(error as Error)?.message ?? error}`)
    }
  }

  const settingsBody = (now: number) => {
    const { phase, ...settings } = room.settings.at(now)
    return {
      settings,
      overrides: room.settings.overrides(),
      event: phase.event ?? null,
      eventPhase: phase.prequeueing ? 'prequeueing' : phase.active ? 'active' : null,
    }
  }

  const admin = new Hono()
  admin.use('*', async (c, next) => {
    await next()
    c.header('Cache-Control', 'no-store') // live state and secrets-adjacent data: never cached by a proxy
  })
  admin.use('*', adminBodyLimit) // before anything reads a body: ./body-limit.ts
  publicRoutes(admin, room) // cross-site writes refused; GET /, the dashboard, signs in with the token itself
  admin.use(
    '*',
    bearerAuth({
      token: o.tokens,
      realm: o.realm,
      noAuthenticationHeader: { message: unauthorized },
      invalidToken: { message: unauthorized },
      // A header that is not a Bearer token (e.g. Basic) carries no token: 401 as well, not hono's 400.
      invalidAuthenticationHeader: {
        message: () => Response.json(unauthorized, { status: 401, headers: { 'WWW-Authenticate': challenge } }),
      },
    }),
  )

  admin.get('/status', async (c) => {
    const { settings, snapshot, plan } = await viewOf(c)
    const messages = messagesFor(undefined, room.options.defaultTemplateLanguage)
    return c.json(roomStatus({ settings, snapshot, plan, now: clock(), messages }))
  })

  admin.get('/settings', async (c) => {
    const now = clock()
    await fromStorage(room.settings.load(now)) // the stored truth, not this worker's possibly older copy
    return c.json(settingsBody(now))
  })

  admin.patch('/settings', requireJson, zValidator('json', settingsPatchSchema, validationHook), async (c) => {
    const now = clock()
    await fromStorage(room.settings.patch(c.req.valid('json'), now))
    return c.json(settingsBody(now))
  })

  eventRoutes(admin, room) // events, their previews and reports, analytics (./event-routes.ts)
  ruleRoutes(admin, room) // GET|POST /rules, DELETE /rules/:id (./rules.ts)

  admin.get('/metrics', async (c) => {
    // During a coordinator outage the counters (errors, fallbacks) matter most: serve them without the gauges.
    const view = await viewOf(c).catch(() => undefined)
    return c.body(renderPrometheus(roomMetricFamilies(room, view, o.metricsPrefix)), 200, { 'Content-Type': PROMETHEUS_CONTENT_TYPE })
  })

  admin.get('/preview', zValidator('query', previewSchema, validationHook), (c) => previewResponse(room, c, c.req.valid('query')))
  admin.post('/preview', requireJson, zValidator('json', previewSchema, validationHook), (c) => previewResponse(room, c, c.req.valid('json')))

  admin.onError(adminError)
  finishAdmin(admin, room, o.tokens, o.mountPath) // GET /openapi.json; the room lets these routes through, mounted before or after it
  return admin
}


/** The queue page (or its JSON) as the room would show it, with a template or event under trial. */
async function previewResponse(room: RoomHandle, c: Context, input: PreviewInput): Promise<Response> {
  const clock = room.options.clock
  const now = clock()
  if (!room.settings.loaded) await room.settings.load(now).catch(() => {}) // a preview works from the options too
  const settings = room.settings.at(now)
  const messages = messagesFor(input.language ?? c.req.header('accept-language'), room.options.defaultTemplateLanguage)
  const variables = previewVariables(input, { settings, refreshIntervalSeconds: room.options.refreshIntervalSeconds, now, messages })
  const challenge = room.options.challenge && input.challenge !== false ? await previewChallenge(room.options.challenge, room.roomId, now) : undefined
  if (challenge) variables.challenge = challenge.info
  if ((c.req.header('accept') ?? '').includes('application/json')) return c.json({ waitingRoom: variables })
  if (challenge) variables.challengeWidget = challenge.widget(variables)
  let html: string
  try {
    html = renderQueuePage(variables, input.template ?? settings.template, messages)
  } catch (error) {
    // The template under trial failed to parse: the caller's field. The room's own template failing is a server error.
    if (input.template === undefined) throw error
    return invalid(c, [{ path: 'template', message: `Mustache: ${(error as Error)?.message ?? error}` }])
  }
  c.header('Content-Language', messages.lang)
  return c.html(html)
}

/** Errors in the admin API's own shape: `{ error, message }` (or `issues` for a 400). */
function adminError(error: Error, c: Context): Response {
  if (error instanceof HTTPException) {
    if (error.res) return error.getResponse()
    // hono's own 400s (malformed JSON) in our shape
    if (error.status === 400) return invalid(c, [{ path: '', message: error.message }])
    return c.json({ error: 'http_error', message: error.message }, error.status)
  }
  if (error instanceof WaitingRoomError) {
    const message = error.message.replace(/^\[hono-waiting-room\] /, '')
    if (error.code === 'ERR_WR_CONFLICT') return c.json({ error: 'conflict', message }, 409)
    if (error.code === 'ERR_WR_OPTIONS') return invalid(c, [{ path: /^invalid option ([\w.]+):/.exec(message)?.[1] ?? '', message }])
    if (error.code === 'ERR_WR_COORDINATOR') return c.json({ error: 'coordinator_unavailable', message }, 503)
  }
  console.error('[hono-waiting-room] admin API error', error)
  return c.json({ error: 'internal', message: 'see the server log' }, 500)
}
