import type { Messages } from './types.ts'

/** English. */
export const en: Messages = {
  lang: 'en',
  dir: 'ltr',
  title: 'You are in line',
  heading: 'You are now in line',
  intro: 'This site is busy right now. Thanks for your patience — you will be let in automatically.',
  waitLabel: 'Estimated wait',
  waitAbout: 'about {time}',
  waitUnknown: 'unavailable',
  refreshNote: 'This page refreshes by itself. Keep it open; reloading does not move you forward.',
  randomNote: 'Places are drawn at random among everyone waiting, so the wait is a range.',
  rejectHeading: 'This site is not accepting visitors right now',
  rejectIntro: 'Please come back later.',
  lastUpdatedLabel: 'Last updated',
  waitBetween: '{from} to {to}',
}
