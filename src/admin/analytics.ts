/**
 * @module
 * `GET /analytics?from&to&step` (JSON, or CSV with `Accept: text/csv`) and `GET /events/:id/report`: the
 * room's history as its coordinator keeps it (`src/history/`). A coordinator without history answers 501.
 */
import { Hono, type Context } from 'hono'
import { fail } from './http.ts'
import { zValidator } from '@hono/zod-validator'
import { z } from 'zod'
import { invalid, validationHook } from './validation.ts'
import { DEFAULT_HISTORY_RETENTION_MINUTES, type HistoryRow } from '../history/model.ts'
import { SESSION_BINS_SECONDS, WAIT_BINS_SECONDS } from '../history/bins.ts'
import { seriesCsv, seriesOf } from '../history/series.ts'
import { eventReport } from '../history/event-report.ts'
import type { RoomHandle } from '../room/decision.ts'

const MINUTE_MS = 60_000
/** Most points one answer holds. */
export const MAX_POINTS = 2000
const DEFAULT_RANGE_MINUTES = 60

const DIGITS = /^\d{1,16}$/
const isoTime = z.iso.datetime({ offset: true })

/** Latest time a query may name: 9999-12-31T23:59:00Z, so every minute of an answer is a valid Date. */
const MAX_QUERY_TIME = Date.UTC(9999, 11, 31, 23, 59)
const RANGE_MESSAGE = 'must be between 1970-01-01T00:00:00Z and 9999-12-31T23:59:00Z'

/** ms since the epoch, or an ISO 8601 time with an offset, within {@link MAX_QUERY_TIME}. */
const timeParam = z.string().transform((value, ctx) => {
  const ms = DIGITS.test(value) ? Number(value) : isoTime.safeParse(value).success ? Date.parse(value) : undefined
  if (ms !== undefined && ms >= 0 && ms <= MAX_QUERY_TIME) return ms
  if (ms !== undefined) {
    ctx.addIssue({ code: 'custom', message: RANGE_MESSAGE })
    return z.NEVER
  }
  ctx.addIssue({ code: 'custom', message: 'expected ms since the epoch or an ISO 8601 time with an offset (2026-12-01T10:00:00Z)' })
  return z.NEVER
})

export const analyticsQuerySchema = z.strictObject({
  from: timeParam.optional(),
  to: timeParam.optional(),
  /** Minutes per point. */
  step: z
    .string()
    .regex(/^\d{1,4}$/, 'expected a whole number of minutes, 1–1440')
    .transform(Number)
    .refine((n) => n >= 1 && n <= 1440, 'expected a whole number of minutes, 1–1440')
    .optional(),
})


/** Reads history through the room's coordinator, after writing this worker's own pending minutes. */
async function readRows(room: RoomHandle, c: Context, fromMinute: number, toMinute: number): Promise<HistoryRow[]> {
  const coordinator = room.coordinatorOf(c)
  if (!coordinator.readHistory) {
    throw fail(501, 'not_implemented', `the ${coordinator.name} coordinator keeps no history: use an adapter that does (memory, SQLite, Redis, Deno KV, Durable Objects)`)
  }
  try {
    await room.history?.flush(coordinator, room.options.clock())
    return await coordinator.readHistory({ roomId: room.roomId, fromMinute, toMinute })
  } catch (error) {
    throw fail(503, 'coordinator_unavailable', `the coordinator failed: ${(error as Error)?.message ?? error}`)
  }
}

const wantsCsv = (c: Context): boolean => /\btext\/csv\b/i.test(c.req.header('accept') ?? '')

/** The analytics routes, to mount on the admin app behind its authentication. */
export function analyticsRoutes(room: RoomHandle): Hono {
  const app = new Hono()
  const clock = room.options.clock
  const retentionMinutes = room.history?.options.retentionMinutes ?? DEFAULT_HISTORY_RETENTION_MINUTES

  app.get('/analytics', zValidator('query', analyticsQuerySchema, validationHook), async (c) => {
    const query = c.req.valid('query')
    const now = clock()
    const to = Math.floor((query.to ?? now + MINUTE_MS) / MINUTE_MS)
    const from = Math.floor((query.from ?? (to - DEFAULT_RANGE_MINUTES) * MINUTE_MS) / MINUTE_MS)
    const step = query.step ?? 1
    if (from >= to) return invalid(c, [{ path: 'from', message: 'must be before to (whole minutes)' }])
    const oldest = Math.floor(now / MINUTE_MS) - retentionMinutes
    if (to <= oldest) return invalid(c, [{ path: 'to', message: `is older than the retention (${retentionMinutes} minutes)` }])
    if (Math.ceil((to - from) / step) > MAX_POINTS) {
      return invalid(c, [{ path: 'step', message: `(to − from) / step gives more than ${MAX_POINTS} points: use a larger step` }])
    }
    const rows = await readRows(room, c, Math.max(from, oldest), to)
    const { points, totals } = seriesOf(rows, from, to, step)
    if (wantsCsv(c)) {
      c.header('Content-Disposition', `attachment; filename="${room.roomId}-analytics.csv"`)
      return c.body(seriesCsv(points), 200, { 'Content-Type': 'text/csv; charset=utf-8' })
    }
    return c.json({
      roomId: room.roomId,
      from: new Date(from * MINUTE_MS).toISOString(),
      to: new Date(to * MINUTE_MS).toISOString(),
      stepMinutes: step,
      retentionMinutes,
      bins: { waitSeconds: WAIT_BINS_SECONDS, sessionSeconds: SESSION_BINS_SECONDS },
      points,
      totals,
    })
  })

  app.get('/events/:id/report', async (c) => {
    const now = clock()
    try {
      await room.settings.load(now)
    } catch (error) {
      throw fail(503, 'storage_unavailable', `the settings storage failed: ${(error as Error)?.message ?? error}`)
    }
    const id = c.req.param('id')
    const event = room.settings.events().find((e) => e.id === id)
    if (!event) throw fail(404, 'not_found', `no event with the id "${id}"`)
    return c.json(await eventReport(event, now, (from, to) => readRows(room, c, from, to), Math.floor(now / MINUTE_MS) - retentionMinutes))
  })

  return app
}
