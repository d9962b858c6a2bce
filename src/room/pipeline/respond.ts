/**
 * @module
 * The respond stage: what a user without a session is answered. Queued and rejected users get the queue
 * page (or JSON) with the room's queueing status code — except a request that is not a GET or HEAD: its body
 * is not forwarded anywhere, so it must not read as success; it gets 429 or 202 when that is the room's code,
 * else 503, with `Retry-After`.
 */
import type { Context } from 'hono'
import type { EffectiveSettings } from '../../admission/settings.ts'
import type { Snapshot } from '../../admission/snapshot.ts'
import { messagesFor, type Messages } from '../../page/messages.ts'
import { keptQueuePage, perAnswerValues, type Kept } from '../../page/kept-page.ts'
import { renderQueuePage, type TemplateVariables } from '../../page/queue-page.ts'
import { queueVariables, waitEstimate, waitVariables, type QueueContext, type WaitEstimate } from '../../page/queue-variables.ts'
import { requestHeaderOf } from '../../ticket/cookie.ts'
import type { Room } from '../room.ts'
import { respondWith, setHeaders, type AnswerHeaders } from './answer.ts'

export interface QueueView {
  snapshot: Snapshot | undefined
  bucketId: number | undefined
  /** Seconds until the next check-in counts (0: no refresh). */
  refresh: number
  newlyQueued: boolean
  /** ms of the user's last counted check-in when this request was not one (too early). */
  lastCountedAt?: number | undefined
  /** The Set-Cookie line of the ticket that keeps the user's place (none: no ticket given). */
  cookie?: string | undefined
  /** `queue-full`: the user was given no place (the `queueIsFull` variable). */
  reason?: string | undefined
  /** A challenge to answer (src/challenge/): its fields for JSON and templates, and the page's widget. */
  challenge?: { info: Record<string, unknown>; widget(variables: TemplateVariables): string } | undefined
}

/**
 * A {@link QueueView} of one fixed shape, every field present in the same order. The decide stage's answers come
 * in several shapes, and a view spread from one (`{ ...decision, cookie }`) was a dictionary-mode object on V8:
 * each of the dozen reads of it here missed the property caches into the runtime, on every queue answer (issue 16).
 */
export function queueView(from: Omit<QueueView, 'cookie' | 'challenge'>, cookie?: string, challenge?: QueueView['challenge']): QueueView {
  return {
    snapshot: from.snapshot,
    bucketId: from.bucketId,
    refresh: from.refresh,
    newlyQueued: from.newlyQueued,
    lastCountedAt: from.lastCountedAt,
    cookie,
    reason: from.reason,
    challenge,
  }
}

/**
 * Pages answered in the current second, per room (page/kept-page.ts): under a flood most queue responses are the
 * same page but for the user's refresh interval and the wait, which the kept page leaves open. Kept per second
 * rather than per snapshot, which the memory coordinator replaces every event-loop turn (issue 16). Only pages,
 * not JSON, never one with a challenge.
 */
interface Pages {
  second: number
  settings: EffectiveSettings
  pages: Map<string, Kept>
}
const pagesOf = new WeakMap<Room, Pages>()
/** Most pages kept at once (the buckets and waits of a second make a few dozen at most). */
const MAX_PAGES = 256

function pageCache(room: Room, s: EffectiveSettings, now: number): Map<string, Kept> {
  const second = Math.floor(now / 1000)
  let cache = pagesOf.get(room)
  if (!cache || cache.second !== second || cache.settings !== s || cache.pages.size >= MAX_PAGES) {
    cache = { second, settings: s, pages: new Map() }
    pagesOf.set(room, cache)
  }
  return cache.pages
}

/**
 * `application/json` anywhere in Accept, in any case: what `accept.toLowerCase().includes(…)` answers, without a
 * lower-cased copy of the header per queued user. (No character outside ASCII lower-cases into this ASCII text
 * on its own: U+0130 becomes two characters, the Kelvin sign a `k` it does not have.)
 */
const JSON_TYPE = /application\/json/i
export const mentionsJson = (accept: string): boolean => JSON_TYPE.test(accept)

/** The queue page (or JSON) for a queued or rejected user. */
export function queueResponse(room: Room, c: Context, s: EffectiveSettings, view: QueueView, now: number): Response {
  const { o } = room
  const messages = messagesFor(requestHeaderOf(c, 'accept-language') ?? undefined, o.defaultTemplateLanguage)
  const headers: AnswerHeaders = { 'cache-control': 'no-store', 'set-cookie': view.cookie === undefined ? undefined : [view.cookie] }
  if (view.refresh > 0) headers.refresh = String(view.refresh)
  const reading = c.req.method === 'GET' || c.req.method === 'HEAD'
  const status = statusFor(c.req.method, s.queueingStatusCode)
  if (!reading) headers['retry-after'] = String(Math.max(1, view.refresh || o.refreshIntervalSeconds))
  // An API client's write gets JSON it can parse whenever it asks for it; pages are for browsers' reads.
  // Cloudflare answers JSON only to exactly `Accept: application/json`; by default any mention of it will do.
  const accept = requestHeaderOf(c, 'accept') ?? ''
  const cloudflare = o.compatibility === 'cloudflare'
  const wantsJson = cloudflare ? accept.trim() === 'application/json' : mentionsJson(accept)
  const json = wantsJson && (o.jsonResponseEnabled || !reading)
  if (json || view.challenge) {
    setHeaders(c, headers)
    const variables = variablesOf(room, s, view, now, messages)
    if (json) return c.json(cloudflare ? { cfWaitingRoom: variables } : { waitingRoom: variables }, status)
    variables.challengeWidget = view.challenge!.widget(variables)
    return c.html(renderQueuePage(variables, s.template, messages), status)
  }
  const cache = pageCache(room, s, now)
  // The wait is left open in the kept page with the user's refresh interval (page/kept-page.ts): the key holds
  // what else the page shows — its second, the event's minutes to go, whether the wait is known at all.
  const estimate = waitEstimate(queueContextOf(room, s, view, now))
  const event = s.phase.event ? `${Math.ceil((s.phase.event.eventStartTime - now) / 60_000)}\n${Math.ceil((s.phase.event.eventEndTime - now) / 60_000)}` : ''
  const key = `${messages.lang}\n${view.refresh > 0}\n${view.reason}\n${Math.floor((view.lastCountedAt ?? now) / 1000)}\n${estimate.waitTime === undefined}\n${event}`
  const values = perAnswerValues(waitVariables(estimate, s.queueingMethod, messages), view.refresh, s.template, messages)
  const page = keptQueuePage(cache, { key, template: s.template, messages, values, variables: () => variablesOf(room, s, view, now, messages, estimate) })
  headers['content-type'] = HTML
  return respondWith(c, { status, headers, body: page })
}

/** The content type Hono's `c.html` answers with. */
const HTML = 'text/html; charset=UTF-8'

/** What the variables of one queue response are made from, but the texts. */
function queueContextOf(room: Room, s: EffectiveSettings, view: QueueView, now: number): Omit<QueueContext, 'messages'> {
  return {
    settings: s,
    snapshot: view.snapshot,
    plan: view.snapshot ? room.planOf(view.snapshot, s) : undefined,
    bucketId: view.bucketId,
    newlyQueued: view.newlyQueued,
    refreshIntervalSeconds: view.refresh,
    now,
    lastCountedAt: view.lastCountedAt,
  }
}

/** The template and JSON variables of one queue response (`estimate`: its wait, when known already). */
function variablesOf(room: Room, s: EffectiveSettings, view: QueueView, now: number, messages: Messages, estimate?: WaitEstimate): TemplateVariables {
  const q = { ...queueContextOf(room, s, view, now), messages }
  const variables = queueVariables(q, estimate ?? waitEstimate(q))
  if (view.reason === 'queue-full') variables.queueIsFull = true
  if (view.challenge) variables.challenge = view.challenge.info
  return variables
}

/** GET and HEAD get the room's code; any other method a code no client can take for success. */
export function statusFor(method: string, queueingStatusCode: 200 | 202 | 429): 200 | 202 | 429 | 503 {
  if (method === 'GET' || method === 'HEAD') return queueingStatusCode
  return queueingStatusCode === 429 || queueingStatusCode === 202 ? queueingStatusCode : 503
}
