import type { Messages } from './types.ts'

/**
 * Arabic (right to left). `waitAbout` puts "تقريبًا" after the time so the phrase stays grammatical with
 * Intl's forms ("دقيقة", "دقيقتان", "5 دقائق").
 */
export const ar: Messages = {
  lang: 'ar',
  dir: 'rtl',
  title: 'أنت في قائمة الانتظار',
  heading: 'أنت الآن في قائمة الانتظار',
  intro: 'يشهد هذا الموقع ضغطًا كبيرًا حاليًا. شكرًا لصبرك، سيتم إدخالك تلقائيًا عندما يحين دورك.',
  waitLabel: 'وقت الانتظار المتوقع',
  waitAbout: '{time} تقريبًا',
  waitUnknown: 'غير معروف',
  refreshNote: 'تُحدَّث هذه الصفحة تلقائيًا. أبقِها مفتوحة؛ إعادة تحميلها لن تُقدِّم دورك.',
  randomNote: 'يتم اختيار الداخلين عشوائيًا من بين جميع المنتظرين، لذلك يُعرض وقت الانتظار على شكل نطاق.',
  rejectHeading: 'هذا الموقع لا يستقبل زوارًا حاليًا',
  rejectIntro: 'يُرجى العودة لاحقًا.',
  lastUpdatedLabel: 'آخر تحديث',
  waitBetween: 'من {from} إلى {to}',
}
