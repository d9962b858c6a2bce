import type { Messages } from './types.ts'

/** Chinese, Traditional (zh-Hant, zh-TW, zh-HK, zh-MO). */
export const zhHant: Messages = {
  lang: 'zh-Hant',
  dir: 'ltr',
  title: '您正在排隊',
  heading: '您已開始排隊',
  intro: '目前網站造訪人數眾多。感謝您耐心等候，輪到您時將自動進入網站。',
  waitLabel: '預估等候時間',
  waitAbout: '約{time}',
  waitUnknown: '未知',
  refreshNote: '本頁面會自動重新整理。請保持頁面開啟；重新載入並不會讓您排得更前面。',
  randomNote: '進入名額會從所有等候者中隨機抽出，因此等候時間顯示為一個範圍。',
  rejectHeading: '本網站目前暫不開放造訪',
  rejectIntro: '請稍後再來。',
  lastUpdatedLabel: '最後更新',
  waitBetween: '{from}到{to}',
}
