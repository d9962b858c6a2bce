import type { Messages } from './types.ts'

/** Romanian. */
export const ro: Messages = {
  lang: 'ro',
  dir: 'ltr',
  title: 'Sunteți la coadă',
  heading: 'Acum sunteți la coadă',
  intro: 'Site-ul este foarte aglomerat în acest moment. Vă mulțumim pentru răbdare — veți fi lăsat să intrați automat.',
  waitLabel: 'Timp de așteptare estimat',
  waitAbout: 'aproximativ {time}',
  waitUnknown: 'necunoscut',
  refreshNote: 'Această pagină se reîmprospătează singură. Lăsați-o deschisă; reîncărcarea nu vă mută mai în față.',
  randomNote: 'Locurile sunt trase la sorți dintre toți cei care așteaptă, așa că timpul de așteptare este un interval.',
  rejectHeading: 'Site-ul nu primește vizitatori în acest moment',
  rejectIntro: 'Vă rugăm să reveniți mai târziu.',
  lastUpdatedLabel: 'Ultima actualizare',
  waitBetween: 'între {from} și {to}',
}
