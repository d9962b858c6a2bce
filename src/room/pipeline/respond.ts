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
import { openQueuePageBytes, renderQueuePage, renderQueuePageBytes, type TemplateVariables } from '../../page/queue-page.ts'
import { closePage, type OpenPage } from '../../page/open-page.ts'
import { queueVariables, waitEstimate, type QueueContext, type WaitEstimate } from '../../page/queue-variables.ts'
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
 * Pages answered in the current second, per room, as the bytes sent. Under a flood most queue responses are the
 * same page — same language, settings, bucket, wait and second, the user's own refresh interval put in — so the
 * page made for the first of them serves the rest, already UTF-8 (encoding a 2.6 KB page cost ~7 µs per answer on Node and
 * Deno): exactly the page a render would give them. Kept by the wait the snapshot gives rather than by the
 * snapshot, which the memory coordinator replaces every event-loop turn: a per-snapshot cache missed on nearly
 * every page over HTTP (issue 16). Only pages, not JSON, never one with a challenge.
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
  // The wait is all the snapshot decides on a page; the event's minutes to go change within a second too.
  const estimate = waitEstimate(queueContextOf(room, s, view, now))
  const wait = `${estimate.waitTime}\n${estimate.percentiles[0]}\n${estimate.percentiles[2]}`
  const event = s.phase.event ? `${Math.ceil((s.phase.event.eventStartTime - now) / 60_000)}\n${Math.ceil((s.phase.event.eventEndTime - now) / 60_000)}` : ''
  // The refresh interval is jittered per user (~60 values): kept out of the key, it is put into the kept page per
  // answer, so one page serves the whole turn (a key with it rendered nearly every page under a flood).
  const key = `${messages.lang}\n${view.refresh > 0}\n${view.bucketId}\n${view.newlyQueued}\n${view.reason}\n${Math.floor((view.lastCountedAt ?? now) / 1000)}\n${wait}\n${event}`
  const page = keptPage(cache, key, view.refresh) ?? renderAndKeep(cache, key, view.refresh, variablesOf(room, s, view, now, messages, estimate), s.template, messages)
  headers['content-type'] = HTML
  return respondWith(c, { status, headers, body: page })
}

/** The names a kept page leaves open: the per-user refresh interval. */
const OPEN: readonly string[] = ['refreshIntervalSeconds']
/** Kept under a key when its page cannot leave the refresh open: the page is then kept per refresh interval. */
const SHUT = 'shut'
/**
 * Under a key: the page open at the refresh interval, with the last page closed from it (a user refreshing
 * again within the second gets the same bytes, no copy; keeping every interval's page kept ~60 pages a wait
 * alive under a flood, where nobody comes back within the second: more old-generation GC), or SHUT. Under a
 * key with an interval: the page of a SHUT key, as sent.
 */
type Kept = { open: OpenPage; refresh: number; page: Uint8Array<ArrayBuffer> } | Uint8Array<ArrayBuffer> | typeof SHUT

/** The key of the page as sent with this refresh interval (a tab: no key of the other kind has one). */
const withRefresh = (key: string, refresh: number): string => `${key}\t${refresh}`

/** The kept page for `key` with this refresh interval in it; undefined when none is kept yet. */
function keptPage(cache: Map<string, Kept>, key: string, refresh: number): Uint8Array<ArrayBuffer> | undefined {
  const kept = cache.get(key)
  if (kept === undefined) return undefined
  if (kept === SHUT) return cache.get(withRefresh(key, refresh)) as Uint8Array<ArrayBuffer> | undefined
  if (kept instanceof Uint8Array) return undefined // never under a key without an interval
  if (kept.refresh === refresh) return kept.page
  const page = closePage(kept.open, { refreshIntervalSeconds: refresh })
  if (page !== undefined) {
    kept.refresh = refresh
    kept.page = page
  }
  return page
}

/** Renders the page and keeps it: open at the refresh interval where the template allows, else as it is. */
function renderAndKeep(cache: Map<string, Kept>, key: string, refresh: number, variables: TemplateVariables, template: string | undefined, messages: Messages): Uint8Array<ArrayBuffer> {
  const made = openQueuePageBytes(variables, template, messages, OPEN)
  if (made instanceof Uint8Array) {
    cache.set(key, SHUT)
    cache.set(withRefresh(key, refresh), made)
    return made
  }
  const page = closePage(made, { refreshIntervalSeconds: refresh })
  if (page === undefined) return renderQueuePageBytes(variables, template, messages) // a refresh no skeleton takes (none)
  cache.set(key, { open: made, refresh, page })
  return page
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
