import type { Messages } from './types.ts'

/**
 * Lithuanian. `waitBetween` is a dash between the two durations: Intl gives the unit in the nominative,
 * which a preposition ("from … to") would need in another case.
 */
export const lt: Messages = {
  lang: 'lt',
  dir: 'ltr',
  title: 'Jūs esate eilėje',
  heading: 'Dabar esate eilėje',
  intro: 'Šiuo metu svetainė labai apkrauta. Dėkojame už kantrybę — būsite įleisti automatiškai.',
  waitLabel: 'Numatomas laukimo laikas',
  waitAbout: 'maždaug {time}',
  waitUnknown: 'nežinomas',
  refreshNote: 'Šis puslapis atsinaujina pats. Neuždarykite jo; įkėlus iš naujo, jūsų vieta eilėje nepagerės.',
  randomNote: 'Įleidžiami lankytojai atsitiktinai parenkami iš visų laukiančiųjų, todėl laukimo laikas nurodomas kaip intervalas.',
  rejectHeading: 'Šiuo metu svetainė nepriima lankytojų',
  rejectIntro: 'Grįžkite vėliau.',
  lastUpdatedLabel: 'Paskutinį kartą atnaujinta',
  waitBetween: '{from} – {to}',
}
