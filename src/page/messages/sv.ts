import type { Messages } from './types.ts'

/** Swedish. */
export const sv: Messages = {
  lang: 'sv',
  dir: 'ltr',
  title: 'Du står i kö',
  heading: 'Du står nu i kö',
  intro: 'Webbplatsen är hårt belastad just nu. Tack för ditt tålamod — du släpps in automatiskt.',
  waitLabel: 'Beräknad väntetid',
  waitAbout: 'cirka {time}',
  waitUnknown: 'okänd',
  refreshNote: 'Sidan uppdateras av sig själv. Låt den vara öppen; att ladda om flyttar dig inte framåt.',
  randomNote: 'Platserna lottas slumpmässigt bland alla som väntar, så väntetiden anges som ett intervall.',
  rejectHeading: 'Webbplatsen tar inte emot besökare just nu',
  rejectIntro: 'Kom tillbaka senare.',
  lastUpdatedLabel: 'Senast uppdaterad',
  waitBetween: '{from} till {to}',
}
