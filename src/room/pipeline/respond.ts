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
import { messagesFor } from '../../page/messages.ts'
import { renderQueuePage, type TemplateVariables } from '../../page/queue-page.ts'
import { queueVariables } from '../../page/queue-variables.ts'
import { requestHeaderOf } from '../../ticket/cookie.ts'
import type { Room } from '../room.ts'

export interface QueueView {
  snapshot: Snapshot | undefined
  bucketId: number | undefined
  /** Seconds until the next check-in counts (0: no refresh). */
  refresh: number
  newlyQueued: boolean
  /** ms of the user's last counted check-in when this request was not one (too early). */
  lastCountedAt?: number | undefined
  /** `queue-full`: the user was given no place (the `queueIsFull` variable). */
  reason?: string | undefined
  /** A challenge to answer (src/challenge/): its fields for JSON and templates, and the page's widget. */
  challenge?: { info: Record<string, unknown>; widget(variables: TemplateVariables): string } | undefined
}

/** The queue page (or JSON) for a queued or rejected user. */
export function queueResponse(room: Room, c: Context, s: EffectiveSettings, view: QueueView, now: number): Response {
  const { o } = room
  const messages = messagesFor(requestHeaderOf(c, 'accept-language') ?? undefined, o.defaultTemplateLanguage)
  const variables = queueVariables({
    settings: s,
    snapshot: view.snapshot,
    plan: view.snapshot ? room.planOf(view.snapshot, s) : undefined,
    bucketId: view.bucketId,
    newlyQueued: view.newlyQueued,
    refreshIntervalSeconds: view.refresh,
    now,
    lastCountedAt: view.lastCountedAt,
    messages,
  })
  if (view.reason === 'queue-full') variables.queueIsFull = true
  if (view.challenge) variables.challenge = view.challenge.info
  c.header('Cache-Control', 'no-store')
  if (view.refresh > 0) c.header('Refresh', String(view.refresh))
  const reading = c.req.method === 'GET' || c.req.method === 'HEAD'
  const status = statusFor(c.req.method, s.queueingStatusCode)
  if (!reading) c.header('Retry-After', String(Math.max(1, view.refresh || o.refreshIntervalSeconds)))
  // An API client's write gets JSON it can parse whenever it asks for it; pages are for browsers' reads.
  // Cloudflare answers JSON only to exactly `Accept: application/json`; by default any mention of it will do.
  const accept = requestHeaderOf(c, 'accept') ?? ''
  const cloudflare = o.compatibility === 'cloudflare'
  const wantsJson = cloudflare ? accept.trim() === 'application/json' : accept.toLowerCase().includes('application/json')
  if (wantsJson && (o.jsonResponseEnabled || !reading)) return c.json(cloudflare ? { cfWaitingRoom: variables } : { waitingRoom: variables }, status)
  if (view.challenge) variables.challengeWidget = view.challenge.widget(variables)
  return c.html(renderQueuePage(variables, s.template, messages), status)
}

/** GET and HEAD get the room's code; any other method a code no client can take for success. */
export function statusFor(method: string, queueingStatusCode: 200 | 202 | 429): 200 | 202 | 429 | 503 {
  if (method === 'GET' || method === 'HEAD') return queueingStatusCode
  return queueingStatusCode === 429 || queueingStatusCode === 202 ? queueingStatusCode : 503
}
