/**
 * @module
 * Queue page previews for the admin API: any template variable can be chosen (as query parameters or a
 * JSON body); the rest follow from the room's settings in force and a plausible wait, so an operator can
 * see each state of the page — or of a template not yet deployed — without queueing real users.
 */
import { z } from 'zod'
import { chooseLanguage, LANGUAGES, type Messages } from '../page/messages.ts'
import { formatWait, formatWaitBetween, type TemplateVariables } from '../page/queue-page.ts'
import { queueVariables } from '../page/queue-variables.ts'
import type { EffectiveSettings } from '../admission/settings.ts'

/** Wait shown when the preview does not choose one: long enough that the page reads like a real queue. */
const DEFAULT_PREVIEW_WAIT_MINUTES = 5
const MAX_MINUTES = 1_000_000

/** A boolean from JSON, or `true`/`false`/`1`/`0` from a query string (zod's coerce would read "false" as true). */
const flag = z.union([z.boolean(), z.enum(['true', 'false', '1', '0']).transform((value) => value === 'true' || value === '1')])
/** Whole minutes/seconds from JSON or from a query string (the number's bounds on the number itself, so the OpenAPI document shows them). */
const count = (max: number) =>
  z.union([
    z.number().int('a whole number').min(0).max(max),
    z.string().regex(/^\d+$/, 'a whole number').transform(Number).pipe(z.number().max(max)),
  ])

export const previewSchema = z.strictObject({
  /** Language of the built-in page's texts (a BCP 47 tag); default the request's Accept-Language, else the room's default. */
  language: z
    .string()
    .regex(/^[A-Za-z]{1,8}(?:[-_][A-Za-z0-9]{1,8})*$/, 'a language tag such as de or pt-BR')
    .refine((tag) => chooseLanguage(tag, '') !== 'en' || /^en(?:[-_]|$)/i.test(tag), `no built-in texts for this language; one of ${LANGUAGES.join(', ')}`)
    .optional(),
  /** A Mustache template to try instead of the room's. */
  template: z.string().min(1).max(200_000).optional(),
  inWaitingRoom: flag.optional(),
  waitTimeKnown: flag.optional(),
  waitTime: count(MAX_MINUTES).optional(),
  waitTimeHours: count(MAX_MINUTES).optional(),
  waitTimeHourMinutes: count(59).optional(),
  waitTime25Percentile: count(MAX_MINUTES).optional(),
  waitTime50Percentile: count(MAX_MINUTES).optional(),
  waitTime75Percentile: count(MAX_MINUTES).optional(),
  waitTimeFormatted: z.string().max(200).optional(),
  queueIsFull: flag.optional(),
  queueAll: flag.optional(),
  lastUpdated: z.iso.datetime({ offset: true }).optional(),
  refreshIntervalSeconds: count(300).optional(),
  queueingMethod: z.enum(['fifo', 'random', 'passthrough', 'reject']).optional(),
  isFIFOQueue: flag.optional(),
  isRandomQueue: flag.optional(),
  isPassthroughQueue: flag.optional(),
  isRejectQueue: flag.optional(),
  isEventActive: flag.optional(),
  isEventPrequeueing: flag.optional(),
  timeUntilEventStart: count(MAX_MINUTES).optional(),
  timeUntilEventStartFormatted: z.string().max(200).optional(),
  timeUntilEventEnd: count(MAX_MINUTES).optional(),
  timeUntilEventEndFormatted: z.string().max(200).optional(),
  shuffleAtEventStart: flag.optional(),
  /** Show the room's challenge on the page (default: when the room has one). */
  challenge: flag.optional(),
})
export type PreviewInput = z.output<typeof previewSchema>

export interface PreviewContext {
  /** The room's settings in force now. */
  settings: EffectiveSettings
  /** The room's refresh interval (the page's meta refresh). */
  refreshIntervalSeconds: number
  now: number
  messages: Messages
}

/**
 * The chosen variables over defaults: the flags follow the chosen (or current) queueing method and event
 * phase; the wait is known unless the state hides it (queue all, prequeue, reject); percentiles and the
 * formatted text follow the chosen wait. An explicitly chosen variable always wins.
 */
export function previewVariables(input: PreviewInput, ctx: PreviewContext): TemplateVariables {
  const { language: _language, template: _template, challenge: _challenge, ...chosen } = input
  const phase = { ...ctx.settings.phase, prequeueing: input.isEventPrequeueing ?? ctx.settings.phase.prequeueing }
  const settings: EffectiveSettings = {
    ...ctx.settings,
    queueingMethod: input.queueingMethod ?? ctx.settings.queueingMethod,
    queueAll: input.queueAll ?? ctx.settings.queueAll,
    phase,
  }
  const base = queueVariables({
    settings,
    snapshot: undefined,
    plan: undefined,
    bucketId: undefined,
    newlyQueued: false,
    refreshIntervalSeconds: ctx.refreshIntervalSeconds,
    now: ctx.now,
    messages: ctx.messages,
  })
  const known = input.waitTimeKnown ?? !(settings.queueAll || phase.prequeueing || settings.queueingMethod === 'reject')
  const wait = input.waitTime ?? input.waitTime50Percentile ?? (known ? DEFAULT_PREVIEW_WAIT_MINUTES : 0)
  // Random queueing shows a range: by default half to double the median, like a typical geometric spread.
  const random = settings.queueingMethod === 'random'
  const low = input.waitTime25Percentile ?? (random ? Math.max(1, Math.round(wait / 2)) : wait)
  const high = input.waitTime75Percentile ?? (random ? wait * 2 : wait)
  return {
    ...base,
    waitTimeKnown: known,
    waitTime: wait,
    waitTimeHours: Math.floor(wait / 60),
    waitTimeHourMinutes: wait % 60,
    waitTime25Percentile: known ? low : 0,
    waitTime50Percentile: known ? (input.waitTime50Percentile ?? wait) : 0,
    waitTime75Percentile: known ? high : 0,
    waitTimeFormatted: known && random ? formatWaitBetween(low, high, ctx.messages) : formatWait(known ? wait : undefined, ctx.messages),
    ...chosen,
  }
}
