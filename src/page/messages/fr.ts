import type { Messages } from './types.ts'

/** French. `\u00a0` / `\u202f`: the no-break spaces French typography puts before `:` and `;`. */
export const fr: Messages = {
  lang: 'fr',
  dir: 'ltr',
  title: 'Vous êtes dans la file d’attente',
  heading: 'Vous êtes maintenant dans la file d’attente',
  intro: 'Ce site est très sollicité en ce moment. Merci de votre patience\u00a0: vous accéderez au site automatiquement dès que ce sera votre tour.',
  waitLabel: 'Attente estimée',
  waitAbout: 'environ {time}',
  waitUnknown: 'inconnue',
  refreshNote: 'Cette page s’actualise automatiquement. Gardez-la ouverte\u202f; la recharger ne vous fera pas avancer dans la file.',
  randomNote: 'Les places sont tirées au sort parmi toutes les personnes en attente\u00a0: le temps d’attente est donc indiqué sous forme de fourchette.',
  rejectHeading: 'Ce site n’accepte pas de visiteurs pour le moment',
  rejectIntro: 'Veuillez revenir plus tard.',
  lastUpdatedLabel: 'Dernière mise à jour',
  waitBetween: 'de {from} à {to}',
}
