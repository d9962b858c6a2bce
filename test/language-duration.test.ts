/**
 * Small page fixes: a tag naming a script our text is not in (`sr-Cyrl-RS`: our Serbian is Latin) falls back
 * to the next entry or the default language; `defaultTemplateLanguage` is taken in any case; a wait past an
 * hour reads in hours and minutes in every language (Intl), never "about 1,200 minutes".
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { chooseLanguage, LANGUAGES, MESSAGES, TEMPLATE_LANGUAGES } from '../src/page/messages.ts'
import { formatMinutes, formatWait } from '../src/page/queue-page.ts'
import { waitingRoom } from '../src/index.ts'
import { roomHarness, TEST_SECRET } from './support/room-harness.ts'

describe('scripts', () => {
  it('sr-Cyrl-* is not given the Latin Serbian page; sr-Latn and sr are', () => {
    for (const region of ['', '-RS', '-BA', '-ME']) {
      expect(chooseLanguage(`sr-Cyrl${region}`, 'en')).toBe('en')
      expect(chooseLanguage(`sr-Cyrl${region}`, 'de')).toBe('de')
      expect(chooseLanguage(`sr-Cyrl${region}, ru;q=0.5`, 'en')).toBe('ru')
      expect(chooseLanguage(`sr-Latn${region}`, 'en')).toBe('sr')
      expect(chooseLanguage(`sr${region}`, 'en')).toBe('sr')
    }
  })

  it('a tag with the script our text is in still matches, in any case; another script never does', () => {
    const scripts: Record<string, string> = { ar: 'Arab', fa: 'Arab', he: 'Hebr', hi: 'Deva', ru: 'Cyrl', uk: 'Cyrl', bg: 'Cyrl', el: 'Grek', ja: 'Jpan', ko: 'Kore', th: 'Thai' }
    fc.assert(
      fc.property(fc.constantFrom(...LANGUAGES.filter((l) => !l.startsWith('zh'))), fc.constantFrom('Latn', 'Cyrl', 'Arab', 'Grek', 'Deva'), fc.boolean(), (lang, script, upper) => {
        const tag = `${lang}-${script}-XX`
        const own = scripts[lang] ?? 'Latn'
        expect(chooseLanguage(upper ? tag.toUpperCase() : tag, 'en')).toBe(script === own ? lang : 'en')
      }),
      { numRuns: 300, seed: 6 },
    )
  })
})

describe('defaultTemplateLanguage in any case', () => {
  it('every listed code in generated casings builds and picks that language', async () => {
    const codes = fc.constantFrom(...TEMPLATE_LANGUAGES)
    fc.assert(
      fc.property(codes, fc.array(fc.boolean(), { minLength: 8, maxLength: 8 }), (code, flips) => {
        const cased = [...code].map((ch, i) => (flips[i % 8] ? ch.toUpperCase() : ch.toLowerCase())).join('')
        expect(() => waitingRoom({ secret: TEST_SECRET, defaultTemplateLanguage: cased })).not.toThrow()
        expect(chooseLanguage(undefined, cased)).toBe(chooseLanguage(undefined, code))
      }),
      { numRuns: 200, seed: 6 },
    )
    const room = roomHarness({ totalActiveUsers: 1, newUsersPerMinute: 100, defaultTemplateLanguage: 'DE-de' })
    await room.visit()
    expect((await room.visit()).body).toContain('lang="de"')
    expect(() => waitingRoom({ secret: TEST_SECRET, defaultTemplateLanguage: 'xx-YY' })).toThrow(/defaultTemplateLanguage.*any case/)
  })
})

describe('waits past an hour', () => {
  it('read in hours and minutes in every language', () => {
    fc.assert(
      fc.property(fc.constantFrom(...LANGUAGES), fc.integer({ min: 60, max: 100_000 }), (lang, minutes) => {
        const messages = MESSAGES[lang]!
        const hours = new Intl.NumberFormat(messages.lang, { style: 'unit', unit: 'hour', unitDisplay: 'long' }).format(Math.floor(minutes / 60))
        const text = formatWait(minutes, messages)
        expect(text).toContain(hours)
        const rest = minutes % 60
        const restText = new Intl.NumberFormat(messages.lang, { style: 'unit', unit: 'minute', unitDisplay: 'long' }).format(rest)
        if (rest > 0) expect(text).toContain(restText)
        // Never the whole wait in minutes.
        expect(text).not.toContain(new Intl.NumberFormat(messages.lang, { style: 'unit', unit: 'minute', unitDisplay: 'long' }).format(minutes))
        expect(formatMinutes(minutes, messages)).toContain(hours)
      }),
      { numRuns: 400, seed: 6 },
    )
  })

  it('the reported wait: 1,200 minutes is 20 hours; under an hour stays in minutes', () => {
    expect(formatWait(1200, MESSAGES.en!)).toBe('about 20 hours')
    expect(formatWait(1265, MESSAGES.en!)).toBe('about 21 hours, 5 minutes')
    expect(formatWait(59, MESSAGES.en!)).toBe('about 59 minutes')
    expect(formatWait(1200, MESSAGES.de!)).toContain('20 Stunden')
  })
})
