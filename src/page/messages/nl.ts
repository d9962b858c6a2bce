import type { Messages } from './types.ts'

/** Dutch (informal "je"). */
export const nl: Messages = {
  lang: 'nl',
  dir: 'ltr',
  title: 'Je staat in de wachtrij',
  heading: 'Je staat nu in de wachtrij',
  intro: 'Deze website is op dit moment erg druk. Bedankt voor je geduld — je wordt automatisch doorgelaten zodra je aan de beurt bent.',
  waitLabel: 'Geschatte wachttijd',
  waitAbout: 'ongeveer {time}',
  waitUnknown: 'onbekend',
  refreshNote: 'Deze pagina wordt automatisch vernieuwd. Houd haar open; opnieuw laden brengt je niet eerder aan de beurt.',
  randomNote: 'De plaatsen worden verloot onder iedereen die wacht, daarom tonen we de wachttijd als een bandbreedte.',
  rejectHeading: 'Deze website laat op dit moment geen bezoekers toe',
  rejectIntro: 'Probeer het later opnieuw.',
  lastUpdatedLabel: 'Laatst bijgewerkt',
  waitBetween: '{from} tot {to}',
}
