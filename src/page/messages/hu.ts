import type { Messages } from './types.ts'

/** Hungarian. */
export const hu: Messages = {
  lang: 'hu',
  dir: 'ltr',
  title: 'Sorban áll',
  heading: 'Most sorban áll',
  intro: 'A webhely jelenleg túlterhelt. Köszönjük türelmét — automatikusan be fogjuk engedni.',
  waitLabel: 'Becsült várakozási idő',
  waitAbout: 'körülbelül {time}',
  waitUnknown: 'ismeretlen',
  refreshNote: 'Ez az oldal magától frissül. Hagyja nyitva; az újratöltés nem viszi előrébb a sorban.',
  randomNote: 'A helyeket véletlenszerűen sorsoljuk ki a várakozók között, ezért a várakozási idő egy tartomány.',
  rejectHeading: 'A webhely jelenleg nem fogad látogatókat',
  rejectIntro: 'Kérjük, térjen vissza később.',
  lastUpdatedLabel: 'Utolsó frissítés',
  waitBetween: '{from} és {to} között',
}
