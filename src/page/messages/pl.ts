import type { Messages } from './types.ts'

/**
 * Polish. `waitAbout` uses "mniej więcej" rather than "około": "około" takes the genitive ("około 2 minut")
 * while Intl gives the nominative ("2 minuty").
 */
export const pl: Messages = {
  lang: 'pl',
  dir: 'ltr',
  title: 'Jesteś w kolejce',
  heading: 'Jesteś teraz w kolejce',
  intro: 'Ta witryna jest teraz mocno obciążona. Dziękujemy za cierpliwość — wejdziesz automatycznie, gdy nadejdzie Twoja kolej.',
  waitLabel: 'Szacowany czas oczekiwania',
  waitAbout: 'mniej więcej {time}',
  waitUnknown: 'nieznany',
  refreshNote: 'Ta strona odświeża się sama. Nie zamykaj jej; ponowne załadowanie nie przesunie Cię do przodu.',
  randomNote: 'Miejsca są losowane spośród wszystkich oczekujących, dlatego czas oczekiwania podajemy jako przedział.',
  rejectHeading: 'Ta witryna nie przyjmuje teraz odwiedzających',
  rejectIntro: 'Spróbuj ponownie później.',
  lastUpdatedLabel: 'Ostatnia aktualizacja',
  waitBetween: '{from} – {to}',
}
