import type { Messages } from './types.ts'

/** Portuguese (Brazilian wording; also served for pt-PT). */
export const pt: Messages = {
  lang: 'pt-BR',
  dir: 'ltr',
  title: 'Você está na fila',
  heading: 'Agora você está na fila',
  intro: 'Este site está com muito movimento no momento. Agradecemos a sua paciência — você entrará automaticamente quando chegar a sua vez.',
  waitLabel: 'Tempo de espera estimado',
  waitAbout: 'cerca de {time}',
  waitUnknown: 'desconhecido',
  refreshNote: 'Esta página é atualizada automaticamente. Mantenha-a aberta; recarregar não faz você avançar na fila.',
  randomNote: 'As vagas são sorteadas entre todas as pessoas na fila, por isso o tempo de espera é mostrado como um intervalo.',
  rejectHeading: 'Este site não está recebendo visitantes no momento',
  rejectIntro: 'Tente novamente mais tarde.',
  lastUpdatedLabel: 'Última atualização',
  waitBetween: 'entre {from} e {to}',
}
