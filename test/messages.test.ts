import { Hono } from 'hono'
import { describe, expect, it } from 'vitest'
import { chooseLanguage, CLOUDFLARE_LANGUAGES, LANGUAGES, MESSAGES, messagesFor, type Messages } from '../src/page/messages.ts'
import { waitingRoom } from '../src/room/middleware.ts'
import { formatWait, formatWaitBetween, renderQueuePage, type TemplateVariables } from '../src/page/queue-page.ts'

const TEXT_KEYS = [
  'title',
  'heading',
  'intro',
  'waitLabel',
  'waitAbout',
  'waitUnknown',
  'refreshNote',
  'randomNote',
  'rejectHeading',
  'rejectIntro',
  'lastUpdatedLabel',
  'waitBetween',
] as const satisfies readonly (keyof Messages)[]

const others = LANGUAGES.filter((code) => code !== 'en')

/** A character of the script each non-Latin language is written in; every text of it must contain one. */
const SCRIPT: Partial<Record<string, RegExp>> = {
  ja: /[\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Han}]/u,
  zh: /\p{Script=Han}/u,
  'zh-Hant': /\p{Script=Han}/u,
  ko: /\p{Script=Hangul}/u,
  ar: /\p{Script=Arabic}/u,
  he: /\p{Script=Hebrew}/u,
  hi: /\p{Script=Devanagari}/u,
  ru: /\p{Script=Cyrillic}/u,
  uk: /\p{Script=Cyrillic}/u,
  bg: /\p{Script=Cyrillic}/u,
  fa: /\p{Script=Arabic}/u,
  el: /\p{Script=Greek}/u,
  th: /\p{Script=Thai}/u,
}

/** Right-to-left languages. */
const RTL = new Set(['ar', 'he', 'fa'])

/** The primary subtag Intl gives a language's `lang`, where it is another code for the same language. */
const INTL_ALIAS: Record<string, string> = { tl: 'fil' }

/** Texts two languages may share: a bare range between two durations (see the languages' comments). */
const SHARED_RANGE = '{from} – {to}'

/** The unit Intl puts in "5 minutes" for each language. */
const UNIT: Record<string, string | RegExp> = {
  en: 'minutes',
  es: 'minutos',
  fr: 'minutes',
  de: 'Minuten',
  it: 'minuti',
  pt: 'minutos',
  nl: 'minuten',
  pl: 'minut',
  ja: '分',
  zh: '分钟',
  'zh-Hant': '分鐘',
  ko: '분',
  ar: /دقائق|دقيقة/,
  he: 'דקות',
  hi: 'मिनट',
  tr: 'dakika',
  ru: 'минут',
  uk: 'хвилин',
  id: 'menit',
  fa: 'دقیقه',
  bg: 'минути',
  hr: 'minuta',
  cs: 'minut',
  da: 'minutter',
  fi: 'minuuttia',
  lt: 'minutės',
  lv: 'minūtes',
  ms: 'minit',
  nb: 'minutter',
  ro: 'minute',
  el: 'λεπτά',
  hu: 'perc',
  sr: 'minuta',
  sk: 'minút',
  sl: 'minut',
  sv: 'minuter',
  tl: 'minuto',
  th: 'นาที',
  vi: 'phút',
}

function variables(overrides: Partial<TemplateVariables> = {}): TemplateVariables {
  return {
    inWaitingRoom: true,
    waitTimeKnown: true,
    waitTime: 5,
    waitTimeHours: 0,
    waitTimeHourMinutes: 5,
    waitTime25Percentile: 5,
    waitTime50Percentile: 5,
    waitTime75Percentile: 5,
    waitTimeFormatted: '',
    queueIsFull: false,
    queueAll: false,
    lastUpdated: '2025-01-01T00:00:00.000Z',
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
    ...overrides,
  }
}

describe('messages', () => {
  it('has a language for each of Cloudflare\'s page languages, right to left where the script is', () => {
    expect(Object.keys(MESSAGES).sort()).toEqual([...LANGUAGES].sort())
    expect(new Set(CLOUDFLARE_LANGUAGES).size).toBe(39) // the 38 of the API reference, and lv-LV
    const chosen = new Set<string>()
    for (const tag of CLOUDFLARE_LANGUAGES) {
      // Each of Cloudflare's codes names its own language: as the room's default and in Accept-Language.
      const code = chooseLanguage(undefined, tag)
      expect(chooseLanguage(tag, 'xx'), tag).toBe(code)
      const primary = tag.split('-')[0]!
      if (tag === 'zh-TW') expect(code).toBe('zh-Hant')
      else expect(code, tag).toBe(primary)
      chosen.add(code)
    }
    expect(chosen.size).toBe(CLOUDFLARE_LANGUAGES.length)
    for (const code of LANGUAGES) expect(MESSAGES[code]!.dir, code).toBe(RTL.has(code) ? 'rtl' : 'ltr')
  })

  it.each([...LANGUAGES])('%s: every key is present, non-empty and trimmed', (code) => {
    const messages = MESSAGES[code]!
    expect(Object.keys(messages).sort()).toEqual(Object.keys(MESSAGES.en!).sort())
    for (const key of TEXT_KEYS) {
      expect(typeof messages[key], `${code}.${key}`).toBe('string')
      expect(messages[key].trim(), `${code}.${key}`).not.toBe('')
      expect(messages[key], `${code}.${key}`).toBe(messages[key].trim())
    }
    // The page's lang attribute and Intl's locale: a tag Intl accepts, for this language.
    expect(Intl.getCanonicalLocales(messages.lang)).toHaveLength(1)
    const primary = code.split('-')[0]!
    expect(messages.lang.toLowerCase().startsWith(INTL_ALIAS[primary] ?? primary)).toBe(true)
  })

  it.each(others)('%s: every text is translated, not copied from English', (code) => {
    const messages = MESSAGES[code]!
    for (const key of TEXT_KEYS) expect(messages[key], `${code}.${key}`).not.toBe(MESSAGES.en![key])
    const script = SCRIPT[code]
    // Words are in the language's script (a text of placeholders and punctuation alone has none).
    const words = (key: string) => messages[key as (typeof TEXT_KEYS)[number]].replace(/\{[a-z]+\}/g, '')
    if (script) for (const key of TEXT_KEYS) if (/\p{L}/u.test(words(key))) expect(messages[key], `${code}.${key}`).toMatch(script)
  })

  it('no two languages share a text (a copy-paste slip)', () => {
    // Chinese and Japanese legitimately share a few short texts: 未知 (zh, zh-Hant), 約{time} (ja, zh-Hant).
    const allowed = new Set(['未知', '約{time}', SHARED_RANGE])
    for (const key of TEXT_KEYS) {
      const seen = new Map<string, string>()
      for (const code of LANGUAGES) {
        const text = MESSAGES[code]![key]
        if (allowed.has(text)) continue
        expect(seen.get(text), `${code}.${key} equals ${seen.get(text)}.${key}`).toBeUndefined()
        seen.set(text, code)
      }
    }
  })

  it.each([...LANGUAGES])('%s: waitAbout has exactly {time}, waitBetween {from} and {to}, the rest none', (code) => {
    const messages = MESSAGES[code]!
    const expected: Partial<Record<string, string[]>> = { waitAbout: ['{time}'], waitBetween: ['{from}', '{to}'] }
    for (const key of TEXT_KEYS) {
      const placeholders = (messages[key].match(/\{[^}]*\}/g) ?? []).sort()
      expect(placeholders, `${code}.${key}`).toEqual(expected[key] ?? [])
    }
  })
})

describe('chooseLanguage', () => {
  it('picks an exact match, case-insensitively', () => {
    expect(chooseLanguage('fr', 'en')).toBe('fr')
    expect(chooseLanguage('DE', 'en')).toBe('de')
    expect(chooseLanguage('zh-hant', 'en')).toBe('zh-Hant')
    expect(chooseLanguage('ZH-HANT-TW', 'en')).toBe('zh-Hant')
  })

  it('honours q-values, order for equal q, and drops q=0', () => {
    expect(chooseLanguage('fr;q=0.5, de;q=0.9', 'en')).toBe('de')
    expect(chooseLanguage('fr;q=0.8, de;q=0.8', 'en')).toBe('fr')
    expect(chooseLanguage('xx, de;q=0.1, fr;q=0.2', 'en')).toBe('fr')
    expect(chooseLanguage('de;q=0, fr;q=0.001', 'en')).toBe('fr')
    expect(chooseLanguage('de;q=0', 'it')).toBe('it')
    expect(chooseLanguage('de;Q=1.0', 'en')).toBe('de')
    expect(chooseLanguage('de ; q = 0.7 , es;q=0.6', 'en')).toBe('de')
    expect(chooseLanguage('en-US,en;q=0.9,ja;q=0.8', 'de')).toBe('en')
    expect(chooseLanguage('sv-SE,sv;q=0.9,nl;q=0.8,en;q=0.7', 'de')).toBe('sv')
    expect(chooseLanguage('eo,cy;q=0.9,nl;q=0.8,en;q=0.7', 'de')).toBe('nl')
  })

  it('falls back from a region or variant to the language', () => {
    expect(chooseLanguage('de-CH', 'en')).toBe('de')
    expect(chooseLanguage('de-CH-1996', 'en')).toBe('de')
    expect(chooseLanguage('pt-PT', 'en')).toBe('pt')
    expect(chooseLanguage('pt-BR', 'en')).toBe('pt')
    expect(chooseLanguage('es-419', 'en')).toBe('es')
    expect(chooseLanguage('ar-EG', 'en')).toBe('ar')
    expect(chooseLanguage('he-IL', 'en')).toBe('he')
    expect(chooseLanguage('sr-Latn-RS, fr-CA;q=0.5', 'en')).toBe('sr')
    expect(chooseLanguage('cy-GB, fr-CA;q=0.5', 'en')).toBe('fr')
    expect(chooseLanguage('de-x-private', 'en')).toBe('de')
    expect(chooseLanguage('en_GB', 'de')).toBe('en')
  })

  it('maps deprecated codes', () => {
    expect(chooseLanguage('iw', 'en')).toBe('he')
    expect(chooseLanguage('in-ID', 'en')).toBe('id')
    expect(chooseLanguage('no', 'en')).toBe('nb')
    expect(chooseLanguage('nn-NO', 'en')).toBe('nb')
    expect(chooseLanguage('fil-PH', 'en')).toBe('tl')
  })

  it('resolves Chinese scripts and regions', () => {
    for (const tag of ['zh-Hant', 'zh-Hant-TW', 'zh-Hant-CN', 'zh-TW', 'zh-HK', 'zh-MO', 'zh-yue-HK', 'yue', 'yue-HK']) {
      expect(chooseLanguage(tag, 'en'), tag).toBe('zh-Hant')
    }
    for (const tag of ['zh', 'zh-CN', 'zh-SG', 'zh-Hans', 'zh-Hans-HK', 'zh-Hans-CN', 'zh-cmn-Hans-CN', 'yue-Hans']) {
      expect(chooseLanguage(tag, 'en'), tag).toBe('zh')
    }
    expect(chooseLanguage('zh-TW,zh;q=0.9,en;q=0.8', 'en')).toBe('zh-Hant')
  })

  it('ignores *, junk and malformed entries without throwing', () => {
    expect(chooseLanguage('*', 'de')).toBe('de')
    expect(chooseLanguage('*, fr;q=0.5', 'de')).toBe('fr')
    for (const junk of [
      '',
      ',,,',
      ';;;',
      ';q=1',
      'q=0.5',
      'fr;q=abc',
      'fr;q=2',
      'fr;q=-1',
      'fr;q=',
      '123',
      'de-',
      '-de',
      'de--CH',
      'toolongsubtag',
      '💥',
      '\u0000\n\t',
      'de;q=0.5;q=0.9;q=',
      'x-klingon',
    ]) {
      expect(() => chooseLanguage(junk, 'it'), JSON.stringify(junk)).not.toThrow()
    }
    expect(chooseLanguage('fr;q=abc, es;q=0.1', 'it')).toBe('es')
    expect(chooseLanguage('fr;q=2', 'it')).toBe('it')
    expect(chooseLanguage('💥, nl', 'it')).toBe('nl')
    expect(chooseLanguage('tlh, x-klingon, i-klingon', 'it')).toBe('it')
    expect(chooseLanguage('de;foo=bar', 'en')).toBe('de')
    expect(chooseLanguage(undefined, 'it')).toBe('it')
  })

  it('falls back to the default if we have it, else English', () => {
    expect(chooseLanguage('eo, cy', 'de')).toBe('de')
    expect(chooseLanguage(undefined, 'ar')).toBe('ar')
    expect(chooseLanguage('eo', 'xx')).toBe('en')
    expect(chooseLanguage(undefined, 'pt-BR')).toBe('pt')
    expect(chooseLanguage(undefined, 'nb-NO')).toBe('nb')
    expect(chooseLanguage(undefined, '')).toBe('en')
    expect(chooseLanguage(undefined, 'de-AT')).toBe('de')
    expect(chooseLanguage(undefined, 'zh-TW')).toBe('zh-Hant')
    expect(chooseLanguage(undefined, 'zh-Hant')).toBe('zh-Hant')
    expect(chooseLanguage(undefined, undefined as unknown as string)).toBe('en')
  })

  it('bounds the work on a huge header: first 20 entries, first 1 KB', () => {
    const filler = Array.from({ length: 20 }, (_, i) => `x${i}`)
    expect(chooseLanguage([...filler, 'fr'].join(','), 'de')).toBe('de')
    expect(chooseLanguage([...filler.slice(1), 'fr'].join(','), 'de')).toBe('fr')
    const long = `${'a'.repeat(1100)}, fr`
    expect(chooseLanguage(long, 'de')).toBe('de')
    // A cut entry is dropped rather than read with the wrong q: `…, en;q=0.1` cut to `…, en` must not win.
    const padded = `es;q=0.5,${'x'.repeat(1008)},en;q=0.1`
    expect(padded.indexOf('en;q') < 1024 && padded.length > 1024).toBe(true)
    expect(chooseLanguage(padded, 'de')).toBe('es')
    const huge = 'de-CH;q=0.5,'.repeat(100_000) + 'fr'
    const started = performance.now()
    expect(chooseLanguage(huge, 'en')).toBe('de')
    expect(performance.now() - started).toBeLessThan(50)
  })

  it('messagesFor returns the chosen language’s texts', () => {
    expect(messagesFor('fr-FR,fr;q=0.9', 'en')).toBe(MESSAGES.fr)
    expect(messagesFor('eo', 'ja')).toBe(MESSAGES.ja)
    expect(messagesFor('eo', 'ja-JP')).toBe(MESSAGES.ja)
    expect(messagesFor('sv-SE', 'en')).toBe(MESSAGES.sv)
    expect(messagesFor('zh-HK', 'en')).toBe(MESSAGES['zh-Hant'])
  })
})

describe('formatWait', () => {
  it.each([...LANGUAGES])('%s: the localised number and unit inside the localised phrase', (code) => {
    const messages = MESSAGES[code]!
    const text = formatWait(5, messages)
    expect(text).toMatch(UNIT[code]!)
    const [before, after] = messages.waitAbout.split('{time}') as [string, string]
    expect(text.startsWith(before)).toBe(true)
    expect(text.endsWith(after)).toBe(true)
    expect(text).not.toContain('{time}')
    expect(formatWait(undefined, messages)).toBe(messages.waitUnknown)
  })

  it.each([...LANGUAGES])('%s: a range is both localised durations inside the localised waitBetween', (code) => {
    const messages = MESSAGES[code]!
    const text = formatWaitBetween(5, 15, messages)
    const minutes = new Intl.NumberFormat(messages.lang, { style: 'unit', unit: 'minute', unitDisplay: 'long' })
    expect(text).toBe(messages.waitBetween.replace('{from}', minutes.format(5)).replace('{to}', minutes.format(15)))
    expect(text).not.toMatch(/[{}]/)
    expect(formatWaitBetween(7, 7, messages)).toBe(minutes.format(7))
  })

  it('examples', () => {
    // Cloudflare's documented example of a random queue's waitTimeFormatted.
    expect(formatWaitBetween(5, 15, MESSAGES.en!)).toBe('5 minutes to 15 minutes')
    expect(formatWaitBetween(5, 15, MESSAGES.de!)).toBe('5 Minuten bis 15 Minuten')
    expect(formatWaitBetween(2, 5, MESSAGES.ru!)).toBe('2 минуты – 5 минут')
    expect(formatWait(undefined, MESSAGES.en!)).toBe('unavailable')
    expect(formatWait(5, MESSAGES.de!)).toBe('etwa 5 Minuten')
    expect(formatWait(1, MESSAGES.es!)).toBe('aproximadamente 1 minuto')
    expect(formatWait(2, MESSAGES.ru!)).toBe('примерно 2 минуты')
    expect(formatWait(5, MESSAGES.zh!)).toBe('约5分钟')
    expect(formatWait(2, MESSAGES.ar!)).toMatch(/^دقيقتان تقريبًا$/)
  })
})

describe('the default page', () => {
  it('renders Arabic right to left', () => {
    const messages = MESSAGES.ar!
    const html = renderQueuePage(variables({ waitTimeFormatted: formatWait(5, messages) }), undefined, messages)
    expect(html).toContain('<html lang="ar" dir="rtl">')
    expect(html).toContain(messages.heading)
    expect(html).toContain(messages.waitLabel)
    expect(html).toContain(formatWait(5, messages))
  })

  it('renders Hebrew right to left and the others left to right', () => {
    expect(renderQueuePage(variables(), undefined, MESSAGES.he!)).toContain('<html lang="he" dir="rtl">')
    expect(renderQueuePage(variables(), undefined, MESSAGES.ja!)).toContain('<html lang="ja" dir="ltr">')
    expect(renderQueuePage(variables(), undefined, MESSAGES.zh!)).toContain('<html lang="zh-Hans" dir="ltr">')
  })

  it.each([...LANGUAGES])('%s: the queue and reject pages carry every text', (code) => {
    const messages = MESSAGES[code]!
    const queue = renderQueuePage(variables({ isRandomQueue: true, isFIFOQueue: false, queueingMethod: 'random' }), undefined, messages)
    for (const key of ['title', 'heading', 'intro', 'waitLabel', 'refreshNote', 'randomNote', 'lastUpdatedLabel'] as const) {
      expect(queue, `${code}.${key}`).toContain(escapeHtml(messages[key]))
    }
    const reject = renderQueuePage(variables({ isRejectQueue: true, queueingMethod: 'reject' }), undefined, messages)
    expect(reject).toContain(escapeHtml(messages.rejectHeading))
    expect(reject).toContain(escapeHtml(messages.rejectIntro))
  })
})

/** What Mustache's {{…}} does to text. */
function escapeHtml(text: string): string {
  const map: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;', '/': '&#x2F;', '`': '&#x60;', '=': '&#x3D;' }
  return text.replace(/[&<>"'`=/]/g, (c) => map[c]!)
}

describe('through the middleware', () => {
  const settle = () => new Promise((resolve) => setTimeout(resolve, 0))

  it('queues in the Accept-Language language, else defaultTemplateLanguage', async () => {
    let now = Date.UTC(2025, 0, 1, 12, 0, 5)
    const clock = () => now
    const app = new Hono()
    app.use(
      '*',
      waitingRoom({ totalActiveUsers: 1, newUsersPerMinute: 1, secret: 'x'.repeat(32), defaultTemplateLanguage: 'de', clock }),
    )
    app.get('/', (c) => c.text('origin'))

    const first = await app.request('/')
    await settle()
    expect(first.status).toBe(200)
    expect(await first.text()).toBe('origin')

    now += 1000
    const french = await app.request('/', { headers: { 'Accept-Language': 'fr-CH, fr;q=0.9, en;q=0.8' } })
    await settle()
    const frenchHtml = await french.text()
    expect(frenchHtml).toContain('<html lang="fr" dir="ltr">')
    expect(frenchHtml).toContain(escapeHtml(MESSAGES.fr!.heading))
    expect(frenchHtml).toMatch(/id="wait-time">environ \d+ minutes?</)

    now += 1000
    const german = await app.request('/')
    await settle()
    const germanHtml = await german.text()
    expect(germanHtml).toContain('<html lang="de" dir="ltr">')
    expect(germanHtml).toContain(MESSAGES.de!.heading)
    expect(germanHtml).toMatch(/id="wait-time">etwa \d+ Minuten?</)

    now += 1000
    const arabic = await app.request('/', { headers: { 'Accept-Language': 'ar-SA' } })
    await settle()
    const arabicHtml = await arabic.text()
    expect(arabicHtml).toContain('<html lang="ar" dir="rtl">')
    expect(arabicHtml).toContain(MESSAGES.ar!.heading)
    expect(arabicHtml).toMatch(/id="wait-time">[^<]*(دقائق|دقيقة|دقيقتان)[^<]*تقريبًا</)
  })

  it("takes Cloudflare's language codes as defaultTemplateLanguage and refuses others, naming the field", async () => {
    for (const tag of CLOUDFLARE_LANGUAGES) {
      const app = new Hono()
      app.use('*', waitingRoom({ totalActiveUsers: 1, newUsersPerMinute: 1, secret: 'x'.repeat(32), defaultTemplateLanguage: tag }))
      app.get('/', (c) => c.text('origin'))
      expect(await (await app.request('/')).text()).toBe('origin')
      await settle()
      const html = await (await app.request('/')).text()
      const messages = MESSAGES[chooseLanguage(undefined, tag)]!
      expect(html, tag).toContain(`<html lang="${messages.lang}" dir="${messages.dir}">`)
      expect(html, tag).toContain(escapeHtml(messages.heading))
    }
    expect(() => waitingRoom({ defaultTemplateLanguage: 'pt-PT-x' })).toThrow(/defaultTemplateLanguage.*pt-BR/)
  })
})
