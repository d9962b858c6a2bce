import type { Messages } from './types.ts'

/** Finnish. */
export const fi: Messages = {
  lang: 'fi',
  dir: 'ltr',
  title: 'Olet jonossa',
  heading: 'Olet nyt jonossa',
  intro: 'Sivustolla on juuri nyt ruuhkaa. Kiitos kärsivällisyydestäsi — pääset sisään automaattisesti.',
  waitLabel: 'Arvioitu odotusaika',
  waitAbout: 'noin {time}',
  waitUnknown: 'ei tiedossa',
  refreshNote: 'Sivu päivittyy itsestään. Pidä se auki; uudelleenlataus ei siirrä sinua jonossa eteenpäin.',
  randomNote: 'Paikat arvotaan kaikkien odottavien kesken, joten odotusaika ilmoitetaan vaihteluvälinä.',
  rejectHeading: 'Sivusto ei ota juuri nyt vastaan kävijöitä',
  rejectIntro: 'Palaa myöhemmin uudelleen.',
  lastUpdatedLabel: 'Päivitetty viimeksi',
  waitBetween: '{from} – {to}',
}
