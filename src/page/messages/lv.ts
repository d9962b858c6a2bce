import type { Messages } from './types.ts'

/**
 * Latvian (in Cloudflare's later lists as `lv-LV`). `waitBetween` is a dash between the two durations:
 * Intl gives the unit in the nominative, which a preposition ("from … to") would need in another case.
 */
export const lv: Messages = {
  lang: 'lv',
  dir: 'ltr',
  title: 'Jūs esat rindā',
  heading: 'Tagad jūs esat rindā',
  intro: 'Vietne šobrīd ir noslogota. Paldies par pacietību — jūs tiksiet ielaists automātiski.',
  waitLabel: 'Paredzamais gaidīšanas laiks',
  waitAbout: 'aptuveni {time}',
  waitUnknown: 'nav zināms',
  refreshNote: 'Šī lapa atsvaidzinās pati. Atstājiet to atvērtu; lapas pārlādēšana jūs nepavirza uz priekšu.',
  randomNote: 'Vietas tiek izlozētas nejauši starp visiem gaidītājiem, tāpēc gaidīšanas laiks ir norādīts kā diapazons.',
  rejectHeading: 'Vietne šobrīd nepieņem apmeklētājus',
  rejectIntro: 'Lūdzu, atgriezieties vēlāk.',
  lastUpdatedLabel: 'Pēdējoreiz atjaunināts',
  waitBetween: '{from} – {to}',
}
