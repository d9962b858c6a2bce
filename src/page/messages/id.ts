import type { Messages } from './types.ts'

/** Indonesian. */
export const id: Messages = {
  lang: 'id',
  dir: 'ltr',
  title: 'Anda sedang dalam antrean',
  heading: 'Anda sekarang dalam antrean',
  intro: 'Situs ini sedang sangat ramai. Terima kasih atas kesabaran Anda — Anda akan masuk secara otomatis saat giliran Anda tiba.',
  waitLabel: 'Perkiraan waktu tunggu',
  waitAbout: 'sekitar {time}',
  waitUnknown: 'tidak diketahui',
  refreshNote: 'Halaman ini diperbarui secara otomatis. Biarkan tetap terbuka; memuat ulang tidak akan mempercepat giliran Anda.',
  randomNote: 'Tempat diundi di antara semua orang yang menunggu, sehingga waktu tunggu ditampilkan sebagai rentang.',
  rejectHeading: 'Situs ini sedang tidak menerima pengunjung',
  rejectIntro: 'Silakan kembali lagi nanti.',
  lastUpdatedLabel: 'Terakhir diperbarui',
  waitBetween: '{from} hingga {to}',
}
