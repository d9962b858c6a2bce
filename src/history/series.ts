/**
 * @module
 * History rows → the analytics answer: rows merged per minute across locations (counters summed, gauges
 * max-merged), then per step (the same rules), with percentiles from the summed histogram bins. Also the CSV.
 */
import { binsFrom, percentilesOf, SESSION_BINS_SECONDS, WAIT_BINS_SECONDS, type Percentiles } from './bins.ts'
import { F, mergeFields, type HistoryRow } from './model.ts'

const MINUTE_MS = 60_000
const EXTRA_PREFIX = 'x.'

export interface WaitStats extends Percentiles {
  /** The longest time in queue at admission, exact. */
  max: number | null
}

export interface AnalyticsPoint {
  time: string
  minute: number
  activeUsers: number | null
  limit: number | null
  newUsersPerMinute: number | null
  waitingUsers: number | null
  admissions: number
  arrivals: number
  wait: WaitStats
  session: Percentiles
  extra: Record<string, number>
}

export interface AnalyticsTotals {
  admissions: number
  arrivals: number
  peakActiveUsers: number | null
  peakWaitingUsers: number | null
  wait: WaitStats
  session: Percentiles
  extra: Record<string, number>
}

export interface AnalyticsSeries {
  points: AnalyticsPoint[]
  totals: AnalyticsTotals
}

/** Every row's fields merged into one (counters summed, gauges maxed). */
export function mergeRows(rows: Iterable<HistoryRow>): Record<string, number> {
  const merged: Record<string, number> = {}
  for (const row of rows) mergeFields(merged, row.fields)
  return merged
}

const gauge = (fields: Record<string, number>, field: string): number | null => fields[field] ?? null

function extraOf(fields: Record<string, number>): Record<string, number> {
  const extra: Record<string, number> = {}
  for (const field in fields) if (field.startsWith(EXTRA_PREFIX)) extra[field.slice(EXTRA_PREFIX.length)] = fields[field]!
  return extra
}

function waitOf(fields: Record<string, number>): WaitStats {
  const max = gauge(fields, F.waitMaxSeconds)
  const stats = percentilesOf(WAIT_BINS_SECONDS, binsFrom(fields, 'wait'), max ?? undefined)
  return { ...stats, max: stats.count > 0 ? max : null }
}

/** The merged fields of one step as a point. */
export function pointOf(minute: number, fields: Record<string, number>): AnalyticsPoint {
  return {
    time: new Date(minute * MINUTE_MS).toISOString(),
    minute,
    activeUsers: gauge(fields, F.activeUsers),
    limit: gauge(fields, F.limit),
    newUsersPerMinute: gauge(fields, F.newUsersPerMinute),
    waitingUsers: gauge(fields, F.waitingUsers),
    admissions: fields[F.admissions] ?? 0,
    arrivals: fields[F.arrivals] ?? 0,
    wait: waitOf(fields),
    session: percentilesOf(SESSION_BINS_SECONDS, binsFrom(fields, 'session')),
    extra: extraOf(fields),
  }
}

/** Points every `step` minutes from `fromMinute` (inclusive) to `toMinute` (exclusive), every step present. */
export function seriesOf(rows: readonly HistoryRow[], fromMinute: number, toMinute: number, step: number): AnalyticsSeries {
  const perStep = new Map<number, Record<string, number>>()
  const all: Record<string, number> = {}
  for (const row of rows) {
    if (row.minute < fromMinute || row.minute >= toMinute) continue
    const start = fromMinute + Math.floor((row.minute - fromMinute) / step) * step
    let fields = perStep.get(start)
    if (!fields) perStep.set(start, (fields = {}))
    mergeFields(fields, row.fields)
    mergeFields(all, row.fields)
  }
  const points: AnalyticsPoint[] = []
  for (let minute = fromMinute; minute < toMinute; minute += step) points.push(pointOf(minute, perStep.get(minute) ?? {}))
  const total = pointOf(fromMinute, all)
  return {
    points,
    totals: {
      admissions: total.admissions,
      arrivals: total.arrivals,
      peakActiveUsers: total.activeUsers,
      peakWaitingUsers: total.waitingUsers,
      wait: total.wait,
      session: total.session,
      extra: total.extra,
    },
  }
}

const CSV_COLUMNS = [
  'time', 'minute', 'activeUsers', 'limit', 'newUsersPerMinute', 'waitingUsers', 'admissions', 'arrivals',
  'waitCount', 'waitP50', 'waitP90', 'waitP99', 'waitMax', 'sessionCount', 'sessionP50', 'sessionP90', 'sessionP99',
] as const

/** A CSV cell: empty for null; quoted when it holds a comma, quote or line break (RFC 4180). */
function cell(value: string | number | null): string {
  if (value === null) return ''
  const text = String(value)
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text
}

/** The points as CSV: the fixed columns, then one `extra.<name>` column per extra counter seen. */
export function seriesCsv(points: readonly AnalyticsPoint[]): string {
  const extras = [...new Set(points.flatMap((p) => Object.keys(p.extra)))].sort()
  const lines = [[...CSV_COLUMNS, ...extras.map((name) => `extra.${name}`)].map(cell).join(',')]
  for (const p of points) {
    const row = [
      p.time, p.minute, p.activeUsers, p.limit, p.newUsersPerMinute, p.waitingUsers, p.admissions, p.arrivals,
      p.wait.count, p.wait.p50, p.wait.p90, p.wait.p99, p.wait.max, p.session.count, p.session.p50, p.session.p90, p.session.p99,
      ...extras.map((name) => p.extra[name] ?? 0),
    ]
    lines.push(row.map(cell).join(','))
  }
  return `${lines.join('\r\n')}\r\n`
}
