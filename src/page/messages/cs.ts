import type { Messages } from './types.ts'

/**
 * Czech. `waitBetween` is a dash between the two durations: Intl gives the unit in the nominative, which a
 * preposition ("from … to") would need in another case.
 */
export const cs: Messages = {
  lang: 'cs',
  dir: 'ltr',
  title: 'Jste ve frontě',
  heading: 'Nyní jste ve frontě',
  intro: 'Tento web je právě přetížený. Děkujeme za trpělivost — budete vpuštěni automaticky.',
  waitLabel: 'Odhadovaná doba čekání',
  waitAbout: 'přibližně {time}',
  waitUnknown: 'neznámá',
  refreshNote: 'Tato stránka se obnovuje sama. Nechte ji otevřenou; opětovné načtení vás neposune dopředu.',
  randomNote: 'Místa se losují náhodně mezi všemi čekajícími, proto je doba čekání uvedena jako rozmezí.',
  rejectHeading: 'Tento web teď nepřijímá návštěvníky',
  rejectIntro: 'Vraťte se prosím později.',
  lastUpdatedLabel: 'Naposledy aktualizováno',
  waitBetween: '{from} – {to}',
}
