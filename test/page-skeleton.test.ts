/**
 * Pages from skeletons: whatever the template and the view, the page is exactly what Mustache renders;
 * a skeleton is made once per shape and filled with each request's own values, so what one user sees never
 * carries another user's refresh interval or wait.
 */
import fc from 'fast-check'
import Mustache from 'mustache'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { chooseLanguage, MESSAGES, messagesFor } from '../src/page/messages.ts'
import { renderBytesFromSkeleton, renderFromSkeleton, type View } from '../src/page/page-skeleton.ts'
import { closePage, openPageBytes } from '../src/page/open-page.ts'
import { renderQueuePage, renderQueuePageBytes, renderUncached, type TemplateVariables } from '../src/page/queue-page.ts'
import { roomHarness } from './support/room-harness.ts'

afterEach(() => vi.restoreAllMocks())

const NAMES = ['a', 'b', 'c', 'flag']
const name = fc.constantFrom(...NAMES)
/** Templates from Mustache's grammar over a few names: text, printed, raw, dotted, sections, inverted, `.`. */
const templateArbitrary: fc.Arbitrary<string> = fc.letrec<{ template: string; piece: string }>((tie) => ({
  template: fc.array(tie('piece'), { maxLength: 6 }).map((pieces) => pieces.join('')),
  piece: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.constantFrom('<p>', ' & ', '"x"', 'text', '\n'),
    name.map((n) => `{{${n}}}`),
    name.map((n) => `{{{${n}}}}`),
    name.map((n) => `{{&${n}}}`),
    name.map((n) => `{{${n}.length}}`),
    fc.constant('{{.}}'),
    fc.tuple(fc.constantFrom('#', '^'), name, tie('template')).map(([kind, n, body]) => `{{${kind}${n}}}${body}{{/${n}}}`),
  ),
})).template
const valueArbitrary = fc.oneof(fc.boolean(), fc.integer({ min: -2, max: 3 }), fc.constantFrom('', '<b>&"\'`=/', 'plain', 'about 5 minutes'), fc.constant(null), fc.constant(undefined))
const viewArbitrary = fc.record(Object.fromEntries(NAMES.map((n) => [n, valueArbitrary])), { noNullPrototype: true }) as fc.Arbitrary<View>

describe('renderFromSkeleton', () => {
  it('is Mustache.render, for generated templates and a series of views each', () => {
    fc.assert(
      fc.property(templateArbitrary, fc.array(viewArbitrary, { minLength: 1, maxLength: 8 }), (template, views) => {
        for (const view of views) expect(renderFromSkeleton(template, view)).toBe(Mustache.render(template, view))
      }),
      { numRuns: 400 },
    )
  })

  it('with extras: is Mustache.render of the view with the extras over it', () => {
    const extrasArbitrary = fc.tuple(viewArbitrary, fc.subarray(NAMES)).map(([values, names]) => Object.fromEntries(names.map((n) => [n, values[n]])))
    fc.assert(
      fc.property(templateArbitrary, fc.array(fc.tuple(viewArbitrary, extrasArbitrary), { minLength: 1, maxLength: 8 }), (template, requests) => {
        for (const [view, extras] of requests) expect(renderFromSkeleton(template, view, extras)).toBe(Mustache.render(template, { ...view, ...extras }))
      }),
      { numRuns: 300 },
    )
  })

  it('as bytes: is the UTF-8 of Mustache.render, non-ASCII and lone surrogates at every boundary included', () => {
    const encoder = new TextEncoder()
    // Values and template text that pair into one character only when joined, and multi-byte text.
    const tricky = fc.constantFrom('\uD83D', '\uDE00', '\uD83D\uDE00', 'é', '约 5 分钟', 'x\uD800', '\uDC00y')
    const bytesView = fc.record(Object.fromEntries(NAMES.map((n) => [n, fc.oneof(valueArbitrary, tricky)])), { noNullPrototype: true }) as fc.Arbitrary<View>
    const trickyTemplate = fc.tuple(templateArbitrary, tricky, templateArbitrary).map(([a, t, b]) => `${a}${t}${b}`)
    fc.assert(
      fc.property(fc.oneof(templateArbitrary, trickyTemplate), fc.array(bytesView, { minLength: 1, maxLength: 8 }), (template, views) => {
        for (const view of views) expect(renderBytesFromSkeleton(template, view)).toEqual(encoder.encode(Mustache.render(template, view)))
      }),
      { numRuns: 400 },
    )
  })

  it('left open at a name, then closed with any value: the UTF-8 of Mustache.render with that value; refused where a section tests the name', () => {
    const encoder = new TextEncoder()
    const openValue = fc.oneof(fc.integer({ min: 0, max: 400 }), fc.constantFrom('', '<b>&"', 'é', '\uD83D\uDE00'))
    fc.assert(
      fc.property(templateArbitrary, name, viewArbitrary, fc.array(openValue, { minLength: 1, maxLength: 6 }), (template, open, view, values) => {
        const page = openPageBytes(template, view, [open])
        const tested = new RegExp(`\\{\\{[#^]${open}\\}\\}|\\{\\{${open}\\.`).test(template)
        if (tested || page instanceof Uint8Array) {
          // Its value shapes the page, so it is never shared across values: the page itself, rendered.
          expect(page).toEqual(encoder.encode(Mustache.render(template, view)))
          return
        }
        // Made with the view's own value, the page carries none of it: each value closes it into its own render.
        for (const value of values) expect(closePage(page, { [open]: value })).toEqual(encoder.encode(Mustache.render(template, { ...view, [open]: value })))
      }),
      { numRuns: 400 },
    )
  })

  it('renders through Mustache once per shape; printed values alone do not make a new shape', () => {
    const template = `<p>{{a}} {{{b}}}</p>{{#flag}}<i>{{c}}</i>{{/flag}}${Math.random()}`
    const render = vi.spyOn(Mustache, 'render')
    for (let i = 0; i < 50; i++) renderFromSkeleton(template, { a: i, b: `<${i}>`, c: `&${i}`, flag: true })
    expect(render).toHaveBeenCalledTimes(2) // the skeleton, and the full render that checks it
    renderFromSkeleton(template, { a: 1, b: 2, c: 3, flag: false })
    expect(render).toHaveBeenCalledTimes(4)
  })

  it('renders in full when escaping is replaced, and when a value is a function', () => {
    const template = `{{a}}|{{b}}${Math.random()}`
    renderFromSkeleton(template, { a: '<x>', b: 1 })
    expect(renderFromSkeleton(template, { a: () => 'called', b: 2 })).toBe(Mustache.render(template, { a: () => 'called', b: 2 }))
    const original = Mustache.escape
    Mustache.escape = (text: string) => text.toUpperCase()
    try {
      expect(renderFromSkeleton(template, { a: '<x>', b: 'y' })).toBe(`<X>|Y${template.slice(11)}`)
    } finally {
      Mustache.escape = original
    }
  })
})

const base: TemplateVariables = {
  inWaitingRoom: true,
  waitTimeKnown: true,
  waitTime: 5,
  waitTimeHours: 0,
  waitTimeHourMinutes: 5,
  waitTime25Percentile: 4,
  waitTime50Percentile: 5,
  waitTime75Percentile: 7,
  waitTimeFormatted: 'about 5 minutes',
  queueIsFull: false,
  queueAll: false,
  lastUpdated: '2026-11-30T12:00:05.000Z',
  refreshIntervalSeconds: 20,
  queueingMethod: 'fifo',
  isFIFOQueue: true,
  isRandomQueue: false,
  isPassthroughQueue: false,
  isRejectQueue: false,
  isEventActive: false,
  isEventPrequeueing: false,
  timeUntilEventStart: 0,
  timeUntilEventStartFormatted: 'unavailable',
  timeUntilEventEnd: 0,
  timeUntilEventEndFormatted: 'unavailable',
  shuffleAtEventStart: false,
}

const variablesArbitrary = fc.record({
  ...Object.fromEntries(Object.entries(base).map(([k, v]) => [k, fc.constant(v)])),
  waitTime: fc.integer({ min: 0, max: 400 }),
  waitTime25Percentile: fc.integer({ min: 0, max: 50 }),
  waitTime75Percentile: fc.integer({ min: 0, max: 500 }),
  waitTimeKnown: fc.boolean(),
  refreshIntervalSeconds: fc.integer({ min: 0, max: 330 }),
  isRandomQueue: fc.boolean(),
  isRejectQueue: fc.boolean(),
  lastUpdated: fc.integer({ min: 0, max: 4e12 }).map((ms) => new Date(ms - (ms % 1000)).toISOString()),
  waitTimeFormatted: fc.constantFrom('about 1 minute', 'about 2 minutes', '<script>'),
}) as fc.Arbitrary<TemplateVariables>

describe('the queue page', () => {
  it('is the full render, for the built-in page in every language and for an operator template', () => {
    const custom = '<p>{{refreshIntervalSeconds}} {{waitTimeFormatted}} {{lastUpdated}}{{#isRandomQueue}} random{{/isRandomQueue}}</p>'
    fc.assert(
      fc.property(fc.array(fc.tuple(variablesArbitrary, fc.constantFrom(undefined, custom), fc.constantFrom(...Object.values(MESSAGES))), { minLength: 1, maxLength: 20 }), (requests) => {
        for (const [variables, template, messages] of requests) {
          expect(renderQueuePage(variables, template, messages)).toBe(renderUncached(variables, template, messages))
          expect(renderQueuePageBytes(variables, template, messages)).toEqual(new TextEncoder().encode(renderUncached(variables, template, messages)))
        }
      }),
      { numRuns: 150 },
    )
  })

  it('through the middleware: each queued user\'s page carries their own refresh interval and wait', async () => {
    const room = roomHarness({ totalActiveUsers: 1, newUsersPerMinute: 1, refreshIntervalSeconds: 20 })
    await room.visit() // the one place
    const seen = new Set<string>()
    const queued = []
    for (let minute = 0; minute < 3; minute++) {
      for (let i = 0; i < 20; i++) queued.push(await room.visit())
      room.advance(60_000)
    }
    // Users of three minute buckets checking in side by side: different places in the queue, jittered intervals.
    room.advance(25_000)
    for (const user of queued) {
      const visit = await room.visit(user.cookie)
      const refresh = visit.response.headers.get('refresh')
      expect(visit.body).toContain(`<meta http-equiv="refresh" content="${refresh}">`)
      seen.add(`${refresh} ${/id="wait-time">([^<]*)</.exec(visit.body)![1]}`)
    }
    expect(seen.size).toBeGreaterThan(3)
  })
})

describe('languages', () => {
  it('messagesFor remembers choices without changing them', () => {
    fc.assert(
      fc.property(fc.oneof(fc.constant(undefined), fc.constantFrom('de-CH,de;q=0.9', 'zh-TW', 'fr;q=0, en', '*'), fc.string()), fc.constantFrom('en', 'de', 'xx'), (header, fallback) => {
        for (let i = 0; i < 2; i++) expect(messagesFor(header, fallback)).toBe(MESSAGES[chooseLanguage(header, fallback)])
      }),
      { numRuns: 300 },
    )
  })
})
