import type { Messages } from './types.ts'

/** Hebrew (right to left; addressed in the plural, which reads as gender-neutral). */
export const he: Messages = {
  lang: 'he',
  dir: 'rtl',
  title: 'אתם בתור',
  heading: 'אתם נמצאים עכשיו בתור',
  intro: 'האתר עמוס כרגע. תודה על הסבלנות — כשיגיע תורכם, תועברו לאתר באופן אוטומטי.',
  waitLabel: 'זמן המתנה משוער',
  waitAbout: 'בערך {time}',
  waitUnknown: 'לא ידוע',
  refreshNote: 'הדף מתרענן מעצמו. השאירו אותו פתוח; טעינה מחדש לא תקדם אתכם בתור.',
  randomNote: 'המקומות מוגרלים בין כל הממתינים, ולכן זמן ההמתנה מוצג כטווח.',
  rejectHeading: 'האתר אינו מקבל מבקרים כרגע',
  rejectIntro: 'נסו שוב מאוחר יותר.',
  lastUpdatedLabel: 'עודכן לאחרונה',
  waitBetween: '{from} עד {to}',
}
