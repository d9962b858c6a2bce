import type { Messages } from './types.ts'

/** German (formal "Sie"). */
export const de: Messages = {
  lang: 'de',
  dir: 'ltr',
  title: 'Sie sind in der Warteschlange',
  heading: 'Sie sind jetzt in der Warteschlange',
  intro: 'Diese Website ist gerade stark ausgelastet. Danke für Ihre Geduld – Sie werden automatisch weitergeleitet, sobald Sie an der Reihe sind.',
  waitLabel: 'Geschätzte Wartezeit',
  waitAbout: 'etwa {time}',
  waitUnknown: 'unbekannt',
  refreshNote: 'Diese Seite aktualisiert sich automatisch. Lassen Sie sie geöffnet – durch Neuladen rücken Sie nicht schneller vor.',
  randomNote: 'Die Plätze werden unter allen Wartenden verlost, deshalb wird die Wartezeit als Spanne angegeben.',
  rejectHeading: 'Diese Website nimmt derzeit keine Besucher an',
  rejectIntro: 'Bitte versuchen Sie es später erneut.',
  lastUpdatedLabel: 'Zuletzt aktualisiert',
  waitBetween: '{from} bis {to}',
}
