/**
 * A kept queue page (src/page/kept-page.ts) answers with exactly the bytes a render of the same variables gives,
 * whatever its refresh interval and wait — left open in the kept page — for generated templates (the per-answer
 * names printed, escaped or not, or tested in sections), every language of the built-in page, both queueing
 * methods and sequences of answers sharing one cache, as a second of a flood does.
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { keptQueuePage, openableNames, perAnswerValues, PER_ANSWER_NAMES, type Kept } from '../src/page/kept-page.ts'
import { LANGUAGES, MESSAGES } from '../src/page/messages.ts'
import { renderQueuePageBytes, renderUncached, type TemplateVariables } from '../src/page/queue-page.ts'
import { waitVariables, type WaitEstimate } from '../src/page/queue-variables.ts'

const NAMES = [...PER_ANSWER_NAMES, 'lastUpdated', 'queueIsFull', 'isRandomQueue', 'waitTimeKnown']
const name = fc.constantFrom(...NAMES)
const text = fc.constantFrom('<p>', ' – ', 'wait: ', '\u00e9\u4e2d', '\n', '&', '')
/** A piece of template: text, a name printed escaped or raw, or a section testing a name around other pieces. */
const piece: fc.Arbitrary<string> = fc.letrec<{ piece: string }>((tie) => ({
  piece: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    text,
    name.map((n) => `{{${n}}}`),
    name.map((n) => `{{{${n}}}}`),
    fc.tuple(fc.constantFrom('#', '^'), name, fc.array(tie('piece'), { maxLength: 3 })).map(([kind, n, inner]) => `{{${kind}${n}}}${inner.join('')}{{/${n}}}`),
  ),
})).piece
const template = fc.option(fc.array(piece, { minLength: 1, maxLength: 8 }).map((pieces) => pieces.join('')), { nil: undefined })

/** One answer's own state: its wait estimate and refresh interval (few values, so answers of a run share some). */
const answer = fc.record({
  wait: fc.constantFrom(undefined, 0, 1, 2, 59, 60, 61, 125),
  low: fc.constantFrom(0, 1, 3),
  high: fc.constantFrom(0, 2, 250),
  refresh: fc.constantFrom(0, 1, 20, 61),
})

function variablesOf(method: string, lang: string, a: { wait: number | undefined; low: number; high: number; refresh: number }, known: boolean): TemplateVariables {
  const messages = MESSAGES[lang]!
  const waitTime = known ? (a.wait ?? 5) : undefined
  const estimate: WaitEstimate = { waitTime, percentiles: method === 'random' && waitTime !== undefined ? [Math.min(a.low, waitTime), waitTime, Math.max(a.high, waitTime)] : [waitTime, waitTime, waitTime] }
  const wait = waitVariables(estimate, method, messages)
  return {
    inWaitingRoom: true,
    waitTimeKnown: known,
    ...wait,
    queueIsFull: false,
    queueAll: false,
    lastUpdated: '2026-12-02T09:00:00.000Z',
    refreshIntervalSeconds: a.refresh,
    queueingMethod: method,
    isFIFOQueue: method === 'fifo',
    isRandomQueue: method === 'random',
    isPassthroughQueue: false,
    isRejectQueue: false,
    isEventActive: false,
    isEventPrequeueing: false,
    timeUntilEventStart: 0,
    timeUntilEventStartFormatted: messages.waitUnknown,
    timeUntilEventEnd: 0,
    timeUntilEventEndFormatted: messages.waitUnknown,
    shuffleAtEventStart: false,
  }
}

describe('a kept queue page', () => {
  it('is, for every answer of a second, the page a fresh render of its variables gives', () => {
    fc.assert(
      fc.property(template, fc.constantFrom(...LANGUAGES), fc.constantFrom('fifo', 'random'), fc.array(fc.tuple(answer, fc.boolean(), fc.constantFrom(1, 2, 61)), { minLength: 1, maxLength: 6 }), (tpl, lang, method, answers) => {
        const cache = new Map<string, Kept>()
        const messages = MESSAGES[lang]!
        // Each answer followed by one that differs in its wait alone (what one report moves under a flood).
        for (const [a, known] of answers.flatMap(([a, known, other]) => [[a, known], [{ ...a, wait: other }, known]] as const)) {
          const variables = variablesOf(method, lang, a, known)
          const wait = waitVariables({ waitTime: known ? (a.wait ?? 5) : undefined, percentiles: [variables.waitTime25Percentile, variables.waitTime50Percentile, variables.waitTime75Percentile] }, method, messages)
          // The key: what the page shows besides the per-answer values, as pipeline/respond.ts makes it.
          const key = `${lang}\n${a.refresh > 0}\n${known}`
          const values = perAnswerValues(wait, a.refresh, tpl, messages)
          const page = keptQueuePage(cache, { key, template: tpl, messages, values, variables: () => variables })
          expect(new TextDecoder().decode(page)).toBe(renderUncached(variables, tpl, messages))
          expect(page).toEqual(renderQueuePageBytes(variables, tpl, messages))
        }
      }),
      { numRuns: 120, seed: 16_17 },
    )
  })

  it('leaves open the per-answer names its template only prints, not those a section tests', () => {
    expect(openableNames(undefined)).toEqual(PER_ANSWER_NAMES)
    expect(openableNames('{{#waitTime}}{{waitTime}}{{/waitTime}} {{refreshIntervalSeconds}}')).toEqual(PER_ANSWER_NAMES.filter((n) => n !== 'waitTime'))
  })

  it('renders once for many waits and refresh intervals of one key', () => {
    const cache = new Map<string, Kept>()
    let renders = 0
    const messages = MESSAGES.en!
    for (let wait = 1; wait < 60; wait++) {
      const a = { wait, low: 0, high: 0, refresh: 20 + (wait % 7) }
      const variables = variablesOf('fifo', 'en', a, true)
      const values = perAnswerValues(waitVariables({ waitTime: wait, percentiles: [wait, wait, wait] }, 'fifo', messages), a.refresh, undefined, messages)
      const page = keptQueuePage(cache, { key: 'en', template: undefined, messages, values, variables: () => (renders++, variables) })
      expect(page).toEqual(renderQueuePageBytes(variables, undefined, messages))
    }
    expect(renders).toBe(1)
  })
})
