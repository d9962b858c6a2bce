import type { Messages } from './types.ts'

/** Italian. */
export const it: Messages = {
  lang: 'it',
  dir: 'ltr',
  title: 'Sei in coda',
  heading: 'Ora sei in coda',
  intro: 'Questo sito è molto affollato in questo momento. Grazie per la pazienza: entrerai automaticamente quando sarà il tuo turno.',
  waitLabel: 'Attesa stimata',
  waitAbout: 'circa {time}',
  waitUnknown: 'sconosciuta',
  refreshNote: 'Questa pagina si aggiorna automaticamente. Tienila aperta: ricaricarla non ti fa avanzare nella coda.',
  randomNote: 'I posti vengono assegnati a sorte tra tutte le persone in attesa, quindi l’attesa è indicata come un intervallo.',
  rejectHeading: 'Questo sito non accetta visitatori al momento',
  rejectIntro: 'Riprova più tardi.',
  lastUpdatedLabel: 'Ultimo aggiornamento',
  waitBetween: 'da {from} a {to}',
}
