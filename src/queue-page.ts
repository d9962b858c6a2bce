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

/** "2 minutes" in the page's language; "less than a minute" style text for under one. */
export function formatWait(minutes: number | undefined, messages: Messages): string {
  if (minutes === undefined) return messages.waitUnknown
  const formatted = new Intl.NumberFormat(messages.lang, { style: 'unit', unit: 'minute', unitDisplay: 'long' }).format(
    Math.max(1, minutes),
  )
  return messages.waitAbout.replace('{time}', formatted)
}

/** Renders HTML: the operator's template with the variables, or the built-in page with its messages too. */
export function renderQueuePage(variables: TemplateVariables, template: string | undefined, messages: Messages): string {
  if (template) return Mustache.render(template, variables)
  return Mustache.render(DEFAULT_TEMPLATE, { ...variables, t: messages, dir: messages.dir })
}

export { messagesFor }
