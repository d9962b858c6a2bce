import type { Messages } from './types.ts'

/** Filipino (Tagalog); Intl knows it as `fil`. */
export const tl: Messages = {
  lang: 'fil',
  dir: 'ltr',
  title: 'Nasa pila ka',
  heading: 'Nasa pila ka na ngayon',
  intro: 'Maraming bumibisita sa site na ito ngayon. Salamat sa iyong pasensya — awtomatiko kang papapasukin.',
  waitLabel: 'Tinatayang tagal ng paghihintay',
  waitAbout: 'humigit-kumulang {time}',
  waitUnknown: 'hindi alam',
  refreshNote: 'Kusang nagre-refresh ang pahinang ito. Panatilihin itong bukas; hindi ka uusad sa pila kapag ni-reload mo ito.',
  randomNote: 'Random na pinipili ang mga papapasukin mula sa lahat ng naghihintay, kaya saklaw ang ipinapakitang tagal ng paghihintay.',
  rejectHeading: 'Hindi tumatanggap ng mga bisita ang site na ito ngayon',
  rejectIntro: 'Pakibalikan na lang mamaya.',
  lastUpdatedLabel: 'Huling na-update',
  waitBetween: '{from} hanggang {to}',
}
