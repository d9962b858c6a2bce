import type { Messages } from './types.ts'

/**
 * Slovenian. `waitBetween` is a dash between the two durations: Intl gives the unit in the nominative,
 * which a preposition ("from … to") would need in another case.
 */
export const sl: Messages = {
  lang: 'sl',
  dir: 'ltr',
  title: 'Ste v čakalni vrsti',
  heading: 'Zdaj ste v čakalni vrsti',
  intro: 'To spletno mesto je trenutno preobremenjeno. Hvala za potrpežljivost — samodejno boste spuščeni naprej.',
  waitLabel: 'Ocenjeni čas čakanja',
  waitAbout: 'približno {time}',
  waitUnknown: 'neznano',
  refreshNote: 'Ta stran se osvežuje sama. Pustite jo odprto; ponovno nalaganje vas ne premakne naprej.',
  randomNote: 'Mesta se žrebajo naključno med vsemi, ki čakajo, zato je čas čakanja podan kot razpon.',
  rejectHeading: 'To spletno mesto trenutno ne sprejema obiskovalcev',
  rejectIntro: 'Vrnite se pozneje.',
  lastUpdatedLabel: 'Zadnja posodobitev',
  waitBetween: '{from} – {to}',
}
