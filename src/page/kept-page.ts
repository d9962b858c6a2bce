/**
 * @module
 * Queue pages kept and answered as bytes (issue 16). Under a flood most queue answers are the same page but for
 * a few values: the user's jittered refresh interval (one of ~60) and what the wait decides, which moves with
 * the snapshot — every turn of the event loop under the memory coordinator, so a page keyed by its wait was
 * rendered about once per turn (~15% of a queued user's CPU with one request per turn). A kept page leaves those
 * holes open ({@link openableNames}: those its template only prints) and each answer puts its own values in, a
 * copy of the bytes rather than a render: exactly the bytes a render with the same variables gives
 * (test/kept-page.test.ts checks that for generated templates, languages and states).
 */
import type { Messages } from './messages.ts'
import { closePage, type OpenPage } from './open-page.ts'
import { shapeNamesOf, type View } from './page-skeleton.ts'
import { openQueuePageBytes, renderQueuePageBytes, waitRangeOf, type TemplateVariables } from './queue-page.ts'
import type { WaitVariables } from './queue-variables.ts'
import { DEFAULT_TEMPLATE } from './templates/default-page.ts'

/**
 * The names of a queue page one answer may differ in from the next with the same language, state and second:
 * the user's jittered refresh interval and what the wait decides (the built-in page's range text included).
 */
export const PER_ANSWER_NAMES: readonly string[] = [
  'refreshIntervalSeconds',
  'waitTime',
  'waitTimeHours',
  'waitTimeHourMinutes',
  'waitTime25Percentile',
  'waitTime50Percentile',
  'waitTime75Percentile',
  'waitTimeFormatted',
  'waitRangeFormatted',
]

/** Per template: the {@link PER_ANSWER_NAMES} it only prints (none of its sections tests them). */
const openable = new Map<string | undefined, readonly string[]>()

/** The per-answer names a kept page of `template` can leave open: those it prints but never tests in a section. */
export function openableNames(template: string | undefined): readonly string[] {
  let names = openable.get(template)
  if (names === undefined) {
    const shape = shapeNamesOf(template ?? DEFAULT_TEMPLATE)
    names = PER_ANSWER_NAMES.filter((name) => !shape.includes(name))
    if (openable.size >= 8) openable.clear() // the built-in template, the operator's, previews
    openable.set(template, names)
  }
  return names
}

/** The values of the {@link PER_ANSWER_NAMES} as a render of `template` prints them (the range: built-in page only). */
export function perAnswerValues(wait: WaitVariables, refreshIntervalSeconds: number, template: string | undefined, messages: Messages): View {
  const values: View = { refreshIntervalSeconds, ...wait }
  if (!template) values.waitRangeFormatted = waitRangeOf(wait.waitTime25Percentile, wait.waitTime75Percentile, messages)
  return values
}

/** The key part of the per-answer values: equal keys, equal values (they all follow from these, with the key's language). */
export const perAnswerKey = (values: View): string =>
  `${values.refreshIntervalSeconds}\n${values.waitTime}\n${values.waitTime25Percentile}\n${values.waitTime75Percentile}`

/** Kept under a key when its page cannot be left open (no skeleton): pages are then kept per values. */
const SHUT = 'shut'

/**
 * Under a key: the page open at the per-answer names, with the last page closed from it (a user answered again
 * with the same values gets the same bytes, no copy; keeping every closed page kept ~60 pages a wait alive under
 * a flood: more old-generation GC), or SHUT. Under a key with values: a SHUT key's page, as sent.
 */
export type Kept = { open: OpenPage; closedFor: string; page: Uint8Array<ArrayBuffer> } | Uint8Array<ArrayBuffer> | typeof SHUT

/** What a kept page is looked up and made with. */
export interface PageRequest {
  /**
   * The page's key without the per-answer values: its language, and every variable the page shows but those
   * values — the caller's to make (it knows what its variables follow from).
   */
  key: string
  template: string | undefined
  messages: Messages
  /** {@link perAnswerValues} of this answer. */
  values: View
  /** This answer's variables, asked only when the page is rendered. */
  variables: () => TemplateVariables
}

/**
 * The page for `request`: the kept one with this answer's values put in, else rendered and kept. The values a
 * template tests in a section are not left open: they are part of the key then.
 */
export function keptQueuePage(cache: Map<string, Kept>, request: PageRequest): Uint8Array<ArrayBuffer> {
  const open = openableNames(request.template)
  const valuesKey = perAnswerKey(request.values)
  // A name tested in a section shapes the page: keyed by all the values (they are few), as a page left shut is.
  const key = open.length === PER_ANSWER_NAMES.length ? request.key : `${request.key}\t${valuesKey}`
  const kept = cache.get(key)
  if (kept === SHUT) return (cache.get(`${key}\t${valuesKey}`) as Uint8Array<ArrayBuffer> | undefined) ?? renderAndKeep(cache, key, valuesKey, request, open)
  if (kept === undefined || kept instanceof Uint8Array) return renderAndKeep(cache, key, valuesKey, request, open)
  if (kept.closedFor === valuesKey) return kept.page
  const page = closePage(kept.open, request.values)
  if (page === undefined) return renderQueuePageBytes(request.variables(), request.template, request.messages) // a value no skeleton takes
  kept.closedFor = valuesKey
  kept.page = page
  return page
}

/** Renders the page and keeps it: open at the names `open` where the template allows, else as it is. */
function renderAndKeep(cache: Map<string, Kept>, key: string, valuesKey: string, request: PageRequest, open: readonly string[]): Uint8Array<ArrayBuffer> {
  const variables = request.variables()
  const made = openQueuePageBytes(variables, request.template, request.messages, open)
  if (made instanceof Uint8Array) {
    cache.set(key, SHUT)
    cache.set(`${key}\t${valuesKey}`, made)
    return made
  }
  const page = closePage(made, request.values)
  if (page === undefined) return renderQueuePageBytes(variables, request.template, request.messages) // a value no skeleton takes
  cache.set(key, { open: made, closedFor: valuesKey, page })
  return page
}
