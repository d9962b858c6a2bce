import type { Messages } from './types.ts'

/** Turkish. */
export const tr: Messages = {
  lang: 'tr',
  dir: 'ltr',
  title: 'Sıradasınız',
  heading: 'Şu anda sıradasınız',
  intro: 'Bu site şu anda çok yoğun. Sabrınız için teşekkür ederiz; sıranız geldiğinde otomatik olarak siteye alınacaksınız.',
  waitLabel: 'Tahmini bekleme süresi',
  waitAbout: 'yaklaşık {time}',
  waitUnknown: 'bilinmiyor',
  refreshNote: 'Bu sayfa kendiliğinden yenilenir. Sayfayı açık tutun; yeniden yüklemek sizi sırada öne geçirmez.',
  randomNote: 'Yerler bekleyen herkes arasından rastgele belirlenir, bu nedenle bekleme süresi bir aralık olarak gösterilir.',
  rejectHeading: 'Bu site şu anda ziyaretçi kabul etmiyor',
  rejectIntro: 'Lütfen daha sonra tekrar deneyin.',
  lastUpdatedLabel: 'Son güncelleme',
  waitBetween: '{from} ile {to} arası',
}
