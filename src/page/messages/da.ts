import type { Messages } from './types.ts'

/** Danish. */
export const da: Messages = {
  lang: 'da',
  dir: 'ltr',
  title: 'Du er i kø',
  heading: 'Du står nu i kø',
  intro: 'Der er travlt på siden lige nu. Tak for din tålmodighed — du bliver lukket ind automatisk.',
  waitLabel: 'Forventet ventetid',
  waitAbout: 'omkring {time}',
  waitUnknown: 'ukendt',
  refreshNote: 'Siden opdaterer sig selv. Lad den være åben; genindlæsning flytter dig ikke frem i køen.',
  randomNote: 'Pladserne trækkes tilfældigt blandt alle, der venter, så ventetiden angives som et interval.',
  rejectHeading: 'Siden tager ikke imod besøgende lige nu',
  rejectIntro: 'Kom venligst tilbage senere.',
  lastUpdatedLabel: 'Sidst opdateret',
  waitBetween: 'mellem {from} og {to}',
}
