/**
 * @module
 * The shape of one language's texts for the built-in queue page.
 */

/** Texts of the built-in queue page in one language. Every key is required and non-empty. */
export interface Messages {
  /** BCP 47 tag of the text: the page's `lang` attribute and the locale `Intl` formats the wait in. */
  lang: string
  /** Writing direction: the page's `dir` attribute. */
  dir: 'ltr' | 'rtl'
  title: string
  heading: string
  intro: string
  waitLabel: string
  /** The estimated wait; `{time}` is replaced by the localised number and unit (e.g. "5 Minuten"). */
  waitAbout: string
  /** The wait when there is no estimate (Cloudflare's "unavailable"); also an event time that does not apply. */
  waitUnknown: string
  refreshNote: string
  randomNote: string
  rejectHeading: string
  rejectIntro: string
  lastUpdatedLabel: string
  /**
   * Random queueing's wait as a range, Cloudflare's "5 minutes to 15 minutes": `{from}` and `{to}` are
   * replaced by Intl's number and unit (e.g. "5 Minuten").
   */
  waitBetween: string
}
