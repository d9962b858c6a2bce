import type { Messages } from './types.ts'

/**
 * Slovak. `waitBetween` is a dash between the two durations: Intl gives the unit in the nominative, which
 * a preposition ("from … to") would need in another case.
 */
export const sk: Messages = {
  lang: 'sk',
  dir: 'ltr',
  title: 'Ste v rade',
  heading: 'Teraz ste v rade',
  intro: 'Táto stránka je momentálne preťažená. Ďakujeme za trpezlivosť — budete vpustení automaticky.',
  waitLabel: 'Odhadovaný čas čakania',
  waitAbout: 'približne {time}',
  waitUnknown: 'neznámy',
  refreshNote: 'Táto stránka sa obnovuje sama. Nechajte ju otvorenú; opätovné načítanie vás neposunie dopredu.',
  randomNote: 'Miesta sa žrebujú náhodne spomedzi všetkých čakajúcich, preto je čas čakania uvedený ako rozpätie.',
  rejectHeading: 'Táto stránka momentálne neprijíma návštevníkov',
  rejectIntro: 'Vráťte sa, prosím, neskôr.',
  lastUpdatedLabel: 'Naposledy aktualizované',
  waitBetween: '{from} – {to}',
}
