/**
 * @module
 * Texts of the built-in queue page, per language, chosen by `Accept-Language` or the room's default.
 */

export interface Messages {
  lang: string
  dir: 'ltr' | 'rtl'
  title: string
  heading: string
  intro: string
  waitLabel: string
  waitAbout: string
  waitUnknown: string
  refreshNote: string
  randomNote: string
  rejectHeading: string
  rejectIntro: string
  lastUpdatedLabel: string
}

export const MESSAGES: Record<string, Messages> = {
  en: {
    lang: 'en',
    dir: 'ltr',
    title: 'You are in line',
    heading: 'You are now in line',
    intro: 'This site is busy right now. Thanks for your patience — you will be let in automatically.',
    waitLabel: 'Estimated wait',
    waitAbout: 'about {time}',
    waitUnknown: 'unknown',
    refreshNote: 'This page refreshes by itself. Keep it open; reloading does not move you forward.',
    randomNote: 'Places are drawn at random among everyone waiting, so the wait is a range.',
    rejectHeading: 'This site is not accepting visitors right now',
    rejectIntro: 'Please come back later.',
    lastUpdatedLabel: 'Last updated',
  },
}

/** The best language for an `Accept-Language` header among those we have, else `fallback`. */
export function chooseLanguage(acceptLanguage: string | undefined, fallback: string): string {
  if (acceptLanguage) {
    const ranked = acceptLanguage
      .split(',')
      .map((part) => {
        const [tag, ...params] = part.trim().split(';')
        const q = params.find((p) => p.trim().startsWith('q='))
        return { tag: tag!.trim().toLowerCase(), q: q ? Number(q.trim().slice(2)) : 1 }
      })
      .filter((entry) => entry.tag && entry.q > 0)
      .sort((a, b) => b.q - a.q)
    for (const { tag } of ranked) {
      if (MESSAGES[tag]) return tag
      const base = tag.split('-')[0]!
      if (MESSAGES[base]) return base
    }
  }
  return MESSAGES[fallback] ? fallback : 'en'
}

export function messagesFor(acceptLanguage: string | undefined, fallback: string): Messages {
  return MESSAGES[chooseLanguage(acceptLanguage, fallback)]!
}
