import type { Messages } from './types.ts'

/** Malay. */
export const ms: Messages = {
  lang: 'ms',
  dir: 'ltr',
  title: 'Anda dalam barisan',
  heading: 'Anda kini dalam barisan',
  intro: 'Laman web ini sedang sibuk. Terima kasih atas kesabaran anda — anda akan dibenarkan masuk secara automatik.',
  waitLabel: 'Anggaran masa menunggu',
  waitAbout: 'kira-kira {time}',
  waitUnknown: 'tidak dapat dipastikan',
  refreshNote: 'Halaman ini dimuat semula secara automatik. Biarkan ia terbuka; memuat semula tidak akan memajukan giliran anda.',
  randomNote: 'Giliran dipilih secara rawak dalam kalangan semua yang menunggu, jadi masa menunggu diberikan sebagai julat.',
  rejectHeading: 'Laman web ini tidak menerima pelawat buat masa ini',
  rejectIntro: 'Sila kembali kemudian.',
  lastUpdatedLabel: 'Kemas kini terakhir',
  waitBetween: '{from} sehingga {to}',
}
