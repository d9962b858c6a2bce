/**
 * @module
 * The queue response: one variables object (DESIGN "Template and JSON variables") rendered either by
 * Mustache into HTML — the built-in page or the operator's template — or as JSON. Pages are filled into
 * skeletons rendered once per shape (./page-skeleton.ts): a full render of the built-in page costs ~20 µs,
 * on every queue response.
 */
import Mustache from 'mustache'
import { DEFAULT_TEMPLATE } from './templates/default-page.ts'
import { messagesFor, type Messages } from './messages.ts'
import { renderBytesFromSkeleton, renderFromSkeleton, type View } from './page-skeleton.ts'
import { openPageBytes, type OpenPage } from './open-page.ts'

export interface TemplateVariables {
  inWaitingRoom: boolean
  waitTimeKnown: boolean
  /** Estimated minutes (FIFO), or the median for random queueing. */
  waitTime: number
  /** `Math.floor(waitTime / 60)`, as Cloudflare defines it. */
  waitTimeHours: number
  /** `waitTime % 60`: the minutes above {@link waitTimeHours}. */
  waitTimeHourMinutes: number
  waitTime25Percentile: number
  waitTime50Percentile: number
  waitTime75Percentile: number
  /** "about 5 minutes"; under random queueing the 25th–75th percentile range, "5 minutes to 15 minutes". */
  waitTimeFormatted: string
  queueIsFull: boolean
  queueAll: boolean
  /**
   * ISO time, to the second, of the user's last counted check-in (Cloudflare: their last attempt to leave
   * the room): a refresh that comes too early is answered without moving it.
   */
  lastUpdated: string
  refreshIntervalSeconds: number
  queueingMethod: string
  isFIFOQueue: boolean
  isRandomQueue: boolean
  isPassthroughQueue: boolean
  isRejectQueue: boolean
  /** An event is prequeueing or running (Cloudflare counts the prequeue as part of the event). */
  isEventActive: boolean
  isEventPrequeueing: boolean
  timeUntilEventStart: number
  /** "15 minutes" while prequeueing, else the language's "unavailable". */
  timeUntilEventStartFormatted: string
  timeUntilEventEnd: number
  /** "15 minutes" while an event is active (prequeue included), else the language's "unavailable". */
  timeUntilEventEndFormatted: string
  shuffleAtEventStart: boolean
  /** The challenge to answer, when the room has one and this user has not answered it (src/challenge/). */
  challenge?: Record<string, unknown> | undefined
  /** Its widget's HTML, for `{{{challengeWidget}}}` (pages only, not JSON). */
  challengeWidget?: string | undefined
}

const minuteFormats = new Map<string, Intl.NumberFormat>()

/** "5 minutes" in a language: one formatter per language, made on first use. */
function minuteFormat(lang: string): Intl.NumberFormat {
  let format = minuteFormats.get(lang)
  if (!format) {
    format = new Intl.NumberFormat(lang, { style: 'unit', unit: 'minute', unitDisplay: 'long' })
    minuteFormats.set(lang, format)
  }
  return format
}

const hourFormats = new Map<string, Intl.NumberFormat>()
const unitLists = new Map<string, Intl.ListFormat | undefined>()

/**
 * A duration in a language: "45 minutes" under an hour, "20 hours" or "20 hours, 5 minutes" past it (Intl's
 * units joined by its unit list; Intl.DurationFormat is not in every runtime yet).
 */
export function formatDuration(minutes: number, lang: string): string {
  if (minutes < 60) return minuteFormat(lang).format(minutes)
  let hours = hourFormats.get(lang)
  if (!hours) hourFormats.set(lang, (hours = new Intl.NumberFormat(lang, { style: 'unit', unit: 'hour', unitDisplay: 'long' })))
  if (!unitLists.has(lang)) unitLists.set(lang, typeof Intl.ListFormat === 'function' ? new Intl.ListFormat(lang, { type: 'unit', style: 'long' }) : undefined)
  const rest = minutes % 60
  const parts = [hours.format(Math.floor(minutes / 60)), ...(rest > 0 ? [minuteFormat(lang).format(rest)] : [])]
  return unitLists.get(lang)?.format(parts) ?? parts.join(' ')
}

/** Formatted waits by texts object, then minutes: every queue response formats one (a µs through Intl). */
const waits = new WeakMap<Messages, Map<number, string>>()
/** Most waits kept per language; past this the cache starts over. */
const MAX_WAITS = 1024

/** "about 2 minutes" in the page's language: Intl's number and unit inside the language's `waitAbout`. */
export function formatWait(minutes: number | undefined, messages: Messages): string {
  if (minutes === undefined) return messages.waitUnknown
  let known = waits.get(messages)
  if (!known) waits.set(messages, (known = new Map()))
  let text = known.get(minutes)
  if (text === undefined) {
    const formatted = formatDuration(Math.max(1, minutes), messages.lang)
    text = messages.waitAbout.replace('{time}', () => formatted)
    if (known.size >= MAX_WAITS) known.clear()
    known.set(minutes, text)
  }
  return text
}

/** Plain durations ("15 minutes") by texts object, then minutes. */
const durations = new WeakMap<Messages, Map<number, string>>()

/** "15 minutes" in the page's language (Intl's number and unit), or its "unavailable" when undefined. */
export function formatMinutes(minutes: number | undefined, messages: Messages): string {
  if (minutes === undefined) return messages.waitUnknown
  let known = durations.get(messages)
  if (!known) durations.set(messages, (known = new Map()))
  let text = known.get(minutes)
  if (text === undefined) {
    text = formatDuration(Math.max(0, minutes), messages.lang)
    if (known.size >= MAX_WAITS) known.clear()
    known.set(minutes, text)
  }
  return text
}

/**
 * Random queueing's `waitTimeFormatted`: "5 minutes to 15 minutes", Cloudflare's phrasing, in the page's
 * language (its `waitBetween` around two Intl durations); one duration when both ends are the same.
 */
export function formatWaitBetween(low: number, high: number, messages: Messages): string {
  const from = Math.max(1, low)
  const to = Math.max(from, high)
  if (from === to) return formatMinutes(from, messages)
  return messages.waitBetween.replace('{from}', () => formatMinutes(from, messages)).replace('{to}', () => formatMinutes(to, messages))
}

/** "3–7 minutes" in the page's language: random queueing's 25th to 75th percentile. */
export function formatWaitRange(low: number, high: number, messages: Messages): string {
  const format = minuteFormat(messages.lang)
  const from = Math.max(1, low)
  const to = Math.max(from, high)
  return from === to ? format.format(from) : format.formatRange(from, to)
}

const timeFormats = new Map<string, Intl.DateTimeFormat>()

/** "12:01 UTC" in the page's language: the server cannot know the reader's time zone, so it says which it uses. */
export function formatUpdated(iso: string, messages: Messages): string {
  let format = timeFormats.get(messages.lang)
  if (!format) {
    format = new Intl.DateTimeFormat(messages.lang, { timeStyle: 'medium', timeZone: 'UTC' })
    timeFormats.set(messages.lang, format)
  }
  return `${format.format(new Date(iso))} UTC`
}

/** Formatted ranges by texts object, then range. */
const ranges = new WeakMap<Messages, Map<string, string>>()

/** {@link formatWaitRange}, remembered per language (Intl's `formatRange` costs µs per call). */
export function waitRangeOf(low: number, high: number, messages: Messages): string {
  let known = ranges.get(messages)
  if (!known) ranges.set(messages, (known = new Map()))
  const key = `${low}-${high}`
  let text = known.get(key)
  if (text === undefined) {
    text = formatWaitRange(low, high, messages)
    if (known.size >= MAX_WAITS) known.clear()
    known.set(key, text)
  }
  return text
}

/** The last `lastUpdated` formatted per texts object: it changes once a second. */
const updated = new WeakMap<Messages, { iso: string; text: string }>()

function updatedOf(iso: string, messages: Messages): string {
  const last = updated.get(messages)
  if (last?.iso === iso) return last.text
  const text = formatUpdated(iso, messages)
  updated.set(messages, { iso, text })
  return text
}

/**
 * Renders HTML: the operator's template with the variables, or the built-in page with its messages too —
 * from a skeleton per shape (./page-skeleton.ts), with this request's own values put in.
 */
export function renderQueuePage(variables: TemplateVariables, template: string | undefined, messages: Messages): string {
  if (template) return renderFromSkeleton(template, variables as unknown as View)
  return renderFromSkeleton(DEFAULT_TEMPLATE, variables as unknown as View, builtInExtras(variables, messages))
}

/** {@link renderQueuePage} as UTF-8, the bytes a queue answer sends (page-skeleton.ts `renderBytesFromSkeleton`). */
export function renderQueuePageBytes(variables: TemplateVariables, template: string | undefined, messages: Messages): Uint8Array<ArrayBuffer> {
  if (template) return renderBytesFromSkeleton(template, variables as unknown as View)
  return renderBytesFromSkeleton(DEFAULT_TEMPLATE, variables as unknown as View, builtInExtras(variables, messages))
}

/**
 * {@link renderQueuePageBytes} with the holes named in `open` left open (page-skeleton.ts `openPageBytes`), or
 * the page's bytes when they cannot be.
 */
export function openQueuePageBytes(variables: TemplateVariables, template: string | undefined, messages: Messages, open: readonly string[]): OpenPage | Uint8Array<ArrayBuffer> {
  if (template) return openPageBytes(template, variables as unknown as View, open)
  return openPageBytes(DEFAULT_TEMPLATE, variables as unknown as View, open, builtInExtras(variables, messages))
}

/** {@link renderQueuePage} through Mustache alone (for tests). */
export function renderUncached(variables: TemplateVariables, template: string | undefined, messages: Messages): string {
  if (template) return Mustache.render(template, variables)
  return Mustache.render(DEFAULT_TEMPLATE, { ...variables, ...builtInExtras(variables, messages) })
}

/** What the built-in page reads besides the variables: its texts and what it shows formatted. */
function builtInExtras(variables: TemplateVariables, messages: Messages): View {
  return {
    t: messages,
    dir: messages.dir,
    refreshes: variables.refreshIntervalSeconds > 0,
    waitRangeFormatted: waitRangeOf(variables.waitTime25Percentile, variables.waitTime75Percentile, messages),
    lastUpdatedFormatted: updatedOf(variables.lastUpdated, messages),
  }
}

export { messagesFor }
