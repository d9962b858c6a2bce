/**
 * @module
 * What an event did, from the room's history: admissions, peak queue, the longest wait, and how long the
 * queue took to drain after the start.
 */
import type { RoomEvent } from '../admission/events.ts'
import type { HistoryRow } from './model.ts'
import { pointOf, type AnalyticsPoint, type WaitStats } from './series.ts'
import { mergeFields } from './model.ts'

const MINUTE_MS = 60_000
/** How long after the event's end the queue is followed to see it drain. */
const DRAIN_FOLLOW_MINUTES = 6 * 60

export interface EventReport {
  event: RoomEvent
  window: { from: string; to: string }
  started: boolean
  /** False when part of the event's window is older than the history's retention: its figures are partial. */
  complete: boolean
  admitted: number
  arrivals: number
  peakQueue: number | null
  peakQueueAt: string | null
  peakActiveUsers: number | null
  maxWaitSeconds: number | null
  wait: WaitStats
  /**
   * From the event's start to the first minute after the peak with an empty queue; null: not drained (yet),
   * or unknown (`complete` false: part of the window is older than the history's retention).
   */
  timeToDrainSeconds: number | null
}

/** Per-minute points of the rows, keyed by minute. */
function perMinute(rows: readonly HistoryRow[]): Map<number, AnalyticsPoint> {
  const fields = new Map<number, Record<string, number>>()
  for (const row of rows) {
    let merged = fields.get(row.minute)
    if (!merged) fields.set(row.minute, (merged = {}))
    mergeFields(merged, row.fields)
  }
  return new Map([...fields].map(([minute, f]) => [minute, pointOf(minute, f)]))
}

export async function eventReport(
  event: RoomEvent,
  now: number,
  read: (fromMinute: number, toMinute: number) => Promise<HistoryRow[]>,
  /** The oldest minute the history still holds (older ones were pruned): missing minutes before it are unknown, not empty. */
  oldestMinute = Number.NEGATIVE_INFINITY,
): Promise<EventReport> {
  const from = Math.floor((event.prequeueStartTime ?? event.eventStartTime) / MINUTE_MS)
  const nowMinute = Math.floor(now / MINUTE_MS)
  // A future event's window is empty (from..from), never backwards.
  const end = Math.max(from, Math.min(Math.ceil(event.eventEndTime / MINUTE_MS), nowMinute + 1))
  const complete = from >= oldestMinute
  const followTo = Math.min(end + DRAIN_FOLLOW_MINUTES, nowMinute + 1)
  const started = now >= event.eventStartTime
  const rows = from < followTo ? await read(from, followTo) : []
  const inWindow: Record<string, number> = {}
  for (const row of rows) if (row.minute < end) mergeFields(inWindow, row.fields)
  const total = pointOf(from, inWindow)
  const minutes = perMinute(rows)

  let peak: AnalyticsPoint | undefined
  for (let m = from; m < end; m++) {
    const point = minutes.get(m)
    if (point?.waitingUsers != null && point.waitingUsers > (peak?.waitingUsers ?? -1)) peak = point
  }
  const startMinute = Math.floor(event.eventStartTime / MINUTE_MS)
  // Nobody ever waited: drained from the start.
  let drained: number | undefined = complete && started && peak?.waitingUsers === 0 ? startMinute : undefined
  // Queued users check in every few seconds: a past minute with no record at all had nobody waiting either.
  for (let m = Math.max(peak?.minute ?? startMinute, startMinute) + 1; complete && started && drained === undefined && m < followTo && m < nowMinute + 1; m++) {
    const waiting = minutes.get(m)?.waitingUsers ?? (m < nowMinute ? 0 : undefined)
    if (waiting === 0) {
      drained = m
      break
    }
  }
  return {
    event,
    window: { from: new Date(from * MINUTE_MS).toISOString(), to: new Date(end * MINUTE_MS).toISOString() },
    started,
    complete,
    admitted: total.admissions,
    arrivals: total.arrivals,
    peakQueue: peak?.waitingUsers ?? null,
    peakQueueAt: peak ? peak.time : null,
    peakActiveUsers: total.activeUsers,
    maxWaitSeconds: total.wait.max,
    wait: total.wait,
    timeToDrainSeconds: drained === undefined ? null : Math.max(0, drained * MINUTE_MS - event.eventStartTime) / 1000,
  }
}
