import type { Messages } from './types.ts'

/** Norwegian Bokmål (also chosen for `no` and `nn`). */
export const nb: Messages = {
  lang: 'nb',
  dir: 'ltr',
  title: 'Du står i kø',
  heading: 'Du står nå i kø',
  intro: 'Nettstedet har mye trafikk akkurat nå. Takk for tålmodigheten — du slippes inn automatisk.',
  waitLabel: 'Beregnet ventetid',
  waitAbout: 'omtrent {time}',
  waitUnknown: 'ukjent',
  refreshNote: 'Siden oppdateres av seg selv. La den være åpen; å laste inn på nytt flytter deg ikke fremover.',
  randomNote: 'Plassene trekkes tilfeldig blant alle som venter, så ventetiden oppgis som et intervall.',
  rejectHeading: 'Nettstedet tar ikke imot besøkende akkurat nå',
  rejectIntro: 'Kom tilbake senere.',
  lastUpdatedLabel: 'Sist oppdatert',
  waitBetween: 'fra {from} til {to}',
}
