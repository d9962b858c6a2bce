/**
 * @module
 * The template/JSON variables for one queue response, from the settings in force, the snapshot and the
 * user's bucket. Pure.
 */
import type { Messages } from './messages.ts'
import type { MinutePlan } from '../admission/plan.ts'
import { formatMinutes, formatWait, formatWaitBetween, type TemplateVariables } from './queue-page.ts'
import type { EffectiveSettings } from '../admission/settings.ts'
import type { Snapshot } from '../admission/snapshot.ts'
import { estimateFifoWait, estimateRandomWait, usersAhead } from '../admission/wait.ts'

export interface QueueContext {
  settings: EffectiveSettings
  /** Undefined when no state could be had (cold start during an outage): the wait is unknown. */
  snapshot: Snapshot | undefined
  plan: MinutePlan | undefined
  /** The user's bucket. */
  bucketId: number | undefined
  /** The user was queued by this very request, so the snapshot does not count them yet. */
  newlyQueued: boolean
  refreshIntervalSeconds: number
  now: number
  /**
   * ms of the user's last counted check-in when this request was not one (a refresh that came too early):
   * `lastUpdated` stays there, as Cloudflare documents. Undefined: this request is the check-in (`now`).
   */
  lastCountedAt?: number | undefined
  messages: Messages
}

const minutesUntil = (at: number, now: number): number => Math.max(0, Math.ceil((at - now) / 60_000))

let isoSecond = Number.NaN
let isoText = ''
/**
 * `lastUpdated`: the time of the check-in to the second (a page says seconds at most), made once a second.
 * Whole seconds also let one rendered page serve everyone queued in that second (queue-page.ts).
 */
function estimateTime(at: number): string {
  const second = Math.floor(at / 1000)
  if (second !== isoSecond) {
    isoSecond = second
    isoText = new Date(second * 1000).toISOString()
  }
  return isoText
}

/** The wait a queue response shows: its 50th percentile (`waitTime`) and the 25th and 75th, in minutes. */
export interface WaitEstimate {
  waitTime: number | undefined
  percentiles: [number | undefined, number | undefined, number | undefined]
}

/**
 * The part of the variables the snapshot decides: the wait. Computed on its own because a kept queue page
 * (page/kept-page.ts) leaves it open and fills it per answer — the rest depends on the settings, the language
 * and the second alone.
 */
export function waitEstimate(q: Omit<QueueContext, 'messages' | 'refreshIntervalSeconds' | 'lastCountedAt'>): WaitEstimate {
  const { settings, snapshot } = q
  const method = settings.queueingMethod
  if (!snapshot || settings.queueAll || method === 'reject' || settings.phase.prequeueing) return { waitTime: undefined, percentiles: [undefined, undefined, undefined] }
  // Admissions per minute; before any were seen, the rate at which sessions turn over.
  const rate =
    snapshot.admissionsPerMinute ||
    Math.min(settings.newUsersPerMinute, settings.totalActiveUsers / (settings.sessionDurationMinutes + 1))
  if (method === 'random') {
    const waiting = Math.max(1, snapshot.waitingUsers + (q.newlyQueued ? 1 : 0))
    const percentiles = [estimateRandomWait(rate, waiting, 0.25), estimateRandomWait(rate, waiting, 0.5), estimateRandomWait(rate, waiting, 0.75)] as WaitEstimate['percentiles']
    return { waitTime: percentiles[1], percentiles }
  }
  if (!q.plan) return { waitTime: undefined, percentiles: [undefined, undefined, undefined] }
  const ahead = usersAhead(q.plan.buckets, q.bucketId ?? snapshot.minute) + (q.newlyQueued ? 1 : 0)
  const waitTime = estimateFifoWait(Math.max(1, ahead), rate)
  return { waitTime, percentiles: [waitTime, waitTime, waitTime] }
}

/** The variables the wait alone decides (a kept queue page leaves them open: page/kept-page.ts). */
export type WaitVariables = Pick<
  TemplateVariables,
  'waitTime' | 'waitTimeHours' | 'waitTimeHourMinutes' | 'waitTime25Percentile' | 'waitTime50Percentile' | 'waitTime75Percentile' | 'waitTimeFormatted'
>

/** {@link WaitVariables} of an estimate, under a queueing method, in a language. */
export function waitVariables(estimate: WaitEstimate, method: string, messages: Messages): WaitVariables {
  const { waitTime, percentiles } = estimate
  const waited = waitTime ?? 0
  return {
    waitTime: waited,
    waitTimeHours: Math.floor(waited / 60),
    waitTimeHourMinutes: waited % 60,
    waitTime25Percentile: percentiles[0] ?? 0,
    waitTime50Percentile: percentiles[1] ?? 0,
    waitTime75Percentile: percentiles[2] ?? 0,
    waitTimeFormatted:
      method === 'random' && waitTime !== undefined
        ? formatWaitBetween(percentiles[0] ?? waitTime, percentiles[2] ?? waitTime, messages)
        : formatWait(waitTime, messages),
  }
}

/** The variables of one queue response; `estimate` when the caller computed it already. */
export function queueVariables(q: QueueContext, estimate: WaitEstimate = waitEstimate(q)): TemplateVariables {
  const { settings, now } = q
  const method = settings.queueingMethod
  const phase = settings.phase
  const event = phase.event
  const eventActive = phase.active || phase.prequeueing
  const untilStart = event && phase.prequeueing ? minutesUntil(event.eventStartTime, now) : undefined
  const untilEnd = event && eventActive ? minutesUntil(event.eventEndTime, now) : undefined
  const wait = waitVariables(estimate, method, q.messages)
  return {
    // Cloudflare: "always true" — the reject page is the waiting room's answer too (isRejectQueue tells it).
    inWaitingRoom: true,
    waitTimeKnown: estimate.waitTime !== undefined,
    waitTime: wait.waitTime,
    waitTimeHours: wait.waitTimeHours,
    waitTimeHourMinutes: wait.waitTimeHourMinutes,
    waitTime25Percentile: wait.waitTime25Percentile,
    waitTime50Percentile: wait.waitTime50Percentile,
    waitTime75Percentile: wait.waitTime75Percentile,
    waitTimeFormatted: wait.waitTimeFormatted,
    queueIsFull: false,
    queueAll: settings.queueAll,
    lastUpdated: estimateTime(q.lastCountedAt ?? now),
    refreshIntervalSeconds: q.refreshIntervalSeconds,
    queueingMethod: method,
    isFIFOQueue: method === 'fifo',
    isRandomQueue: method === 'random',
    isPassthroughQueue: method === 'passthrough',
    isRejectQueue: method === 'reject',
    isEventActive: eventActive,
    isEventPrequeueing: phase.prequeueing,
    timeUntilEventStart: untilStart ?? 0,
    timeUntilEventStartFormatted: formatMinutes(untilStart, q.messages),
    timeUntilEventEnd: untilEnd ?? 0,
    timeUntilEventEndFormatted: formatMinutes(untilEnd, q.messages),
    shuffleAtEventStart: event?.shuffleAtEventStart === true,
  }
}
