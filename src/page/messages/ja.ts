import type { Messages } from './types.ts'

/** Japanese. */
export const ja: Messages = {
  lang: 'ja',
  dir: 'ltr',
  title: '順番待ち中です',
  heading: 'ただいま順番待ちの列に並んでいます',
  intro: '現在、アクセスが集中しています。順番が来ると自動的にサイトへ移動しますので、このままお待ちください。',
  waitLabel: '待ち時間の目安',
  waitAbout: '約{time}',
  waitUnknown: '不明',
  refreshNote: 'このページは自動的に更新されます。ページを開いたままお待ちください。再読み込みしても順番は早まりません。',
  randomNote: '入場の順番は待機中の方の中から抽選で決まるため、待ち時間は幅をもってお知らせしています。',
  rejectHeading: '現在、このサイトへのアクセスを受け付けていません',
  rejectIntro: 'しばらくしてから再度アクセスしてください。',
  lastUpdatedLabel: '最終更新',
  waitBetween: '{from}～{to}',
}
