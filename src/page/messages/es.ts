import type { Messages } from './types.ts'

/** Spanish (neutral, informal "tú"). */
export const es: Messages = {
  lang: 'es',
  dir: 'ltr',
  title: 'Estás en la fila',
  heading: 'Ya estás en la fila',
  intro: 'Este sitio tiene mucha demanda en este momento. Gracias por tu paciencia: entrarás automáticamente cuando sea tu turno.',
  waitLabel: 'Tiempo de espera estimado',
  waitAbout: 'aproximadamente {time}',
  waitUnknown: 'desconocido',
  refreshNote: 'Esta página se actualiza automáticamente. Mantenla abierta; recargarla no te hará avanzar en la fila.',
  randomNote: 'Los turnos se sortean entre todas las personas que esperan, por eso la espera se indica como un intervalo.',
  rejectHeading: 'Este sitio no admite visitantes en este momento',
  rejectIntro: 'Vuelve a intentarlo más tarde.',
  lastUpdatedLabel: 'Última actualización',
  waitBetween: 'entre {from} y {to}',
}
