/**
 * @module
 * The queue response: one variables object (DESIGN "Template and JSON variables") rendered either by
 * Mustache into HTML — the built-in page or the operator's template — or as JSON.
 */
import Mustache from 'mustache'
import { DEFAULT_TEMPLATE } from './templates/default-page.ts'
import { messagesFor, type Messages } from './messages.ts'

export interface TemplateVariables {
  inWaitingRoom: boolean
  waitTimeKnown: boolean
  /** Estimated minutes (FIFO), or the median for random queueing. */
  waitTime: number
  waitTime25Percentile: number
  waitTime50Percentile: number
  waitTime75Percentile: number
  waitTimeFormatted: string
  queueIsFull: boolean
  queueAll: boolean
  /** ISO time the estimate was made. */
  lastUpdated: string
  refreshIntervalSeconds: number
  queueingMethod: string
  isFIFOQueue: boolean
  isRandomQueue: boolean
  isPassthroughQueue: boolean
  isRejectQueue: boolean
  isEventActive: boolean
  isEventPrequeueing: boolean
  timeUntilEventStart: number
  timeUntilEventEnd: number
  shuffleAtEventStart: boolean
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

/** "about 2 minutes" in the page's language: Intl's number and unit inside the language's `waitAbout`. */
export function formatWait(minutes: number | undefined, messages: Messages): string {
  if (minutes === undefined) return messages.waitUnknown
  const formatted = minuteFormat(messages.lang).format(Math.max(1, minutes))
  return messages.waitAbout.replace('{time}', () => formatted)
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

/** Renders HTML: the operator's template with the variables, or the built-in page with its messages too. */
export function renderQueuePage(variables: TemplateVariables, template: string | undefined, messages: Messages): string {
  if (template) return Mustache.render(template, variables)
  return Mustache.render(DEFAULT_TEMPLATE, {
    ...variables,
    t: messages,
    dir: messages.dir,
    waitRangeFormatted: formatWaitRange(variables.waitTime25Percentile, variables.waitTime75Percentile, messages),
    lastUpdatedFormatted: formatUpdated(variables.lastUpdated, messages),
  })
}

export { messagesFor }
