import type { Messages } from './types.ts'

/** Chinese, Simplified (zh, zh-CN, zh-SG, zh-Hans). */
export const zh: Messages = {
  lang: 'zh-Hans',
  dir: 'ltr',
  title: '您正在排队',
  heading: '您已开始排队',
  intro: '当前网站访问人数较多。感谢您的耐心等待，轮到您时将自动进入网站。',
  waitLabel: '预计等待时间',
  waitAbout: '约{time}',
  waitUnknown: '未知',
  refreshNote: '本页面会自动刷新。请保持页面打开；重新加载并不会让您排得更靠前。',
  randomNote: '入场名额从所有等待者中随机抽取，因此等待时间显示为一个范围。',
  rejectHeading: '本网站目前暂不接受访问',
  rejectIntro: '请稍后再来。',
  lastUpdatedLabel: '最后更新',
  waitBetween: '{from}至{to}',
}
