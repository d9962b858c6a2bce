import type { Messages } from './types.ts'

/**
 * Serbian in Latin script (for Cloudflare's `sr-BA`), in the ekavian standard. `waitBetween` is a dash
 * between the two durations: Intl gives the unit in the nominative, which a preposition ("from … to")
 * would need in another case.
 */
export const sr: Messages = {
  lang: 'sr-Latn',
  dir: 'ltr',
  title: 'Čekate u redu',
  heading: 'Sada ste u redu čekanja',
  intro: 'Ovaj sajt je trenutno preopterećen. Hvala na strpljenju — bićete automatski propušteni.',
  waitLabel: 'Procenjeno vreme čekanja',
  waitAbout: 'okvirno {time}',
  waitUnknown: 'nije poznato',
  refreshNote: 'Ova stranica se sama osvežava. Ostavite je otvorenom; ponovno učitavanje vas ne pomera napred.',
  randomNote: 'Mesta se izvlače nasumično među svima koji čekaju, pa je vreme čekanja raspon.',
  rejectHeading: 'Ovaj sajt trenutno ne prima posetioce',
  rejectIntro: 'Molimo vas da se vratite kasnije.',
  lastUpdatedLabel: 'Poslednje ažuriranje',
  waitBetween: '{from} – {to}',
}
