import type { Messages } from './types.ts'

/**
 * Croatian. `waitBetween` is a dash between the two durations: Intl gives the unit in the nominative,
 * which a preposition ("from … to") would need in another case.
 */
export const hr: Messages = {
  lang: 'hr',
  dir: 'ltr',
  title: 'U redu ste za čekanje',
  heading: 'Sada ste u redu za čekanje',
  intro: 'Ova je stranica trenutačno preopterećena. Hvala na strpljenju — bit ćete automatski propušteni.',
  waitLabel: 'Procijenjeno vrijeme čekanja',
  waitAbout: 'otprilike {time}',
  waitUnknown: 'nepoznato',
  refreshNote: 'Ova se stranica sama osvježava. Ostavite je otvorenom; ponovno učitavanje ne pomiče vas naprijed.',
  randomNote: 'Mjesta se izvlače nasumično među svima koji čekaju, pa je vrijeme čekanja raspon.',
  rejectHeading: 'Ova stranica trenutačno ne prima posjetitelje',
  rejectIntro: 'Molimo vratite se kasnije.',
  lastUpdatedLabel: 'Posljednje ažuriranje',
  waitBetween: '{from} – {to}',
}
