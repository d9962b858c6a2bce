import type { Messages } from './types.ts'

/** Persian (right to left). */
export const fa: Messages = {
  lang: 'fa',
  dir: 'rtl',
  title: 'شما در صف هستید',
  heading: 'اکنون در صف هستید',
  intro: 'این وب‌سایت در حال حاضر شلوغ است. از شکیبایی شما سپاسگزاریم؛ به‌طور خودکار وارد خواهید شد.',
  waitLabel: 'زمان انتظار تخمینی',
  waitAbout: 'حدود {time}',
  waitUnknown: 'نامشخص',
  refreshNote: 'این صفحه به‌طور خودکار به‌روز می‌شود. آن را باز نگه دارید؛ بارگیری دوباره شما را جلو نمی‌برد.',
  randomNote: 'نوبت‌ها به‌صورت تصادفی میان همهٔ منتظران انتخاب می‌شوند، بنابراین زمان انتظار یک بازه است.',
  rejectHeading: 'این وب‌سایت در حال حاضر بازدیدکننده نمی‌پذیرد',
  rejectIntro: 'لطفاً بعداً دوباره مراجعه کنید.',
  lastUpdatedLabel: 'آخرین به‌روزرسانی',
  waitBetween: '{from} تا {to}',
}
