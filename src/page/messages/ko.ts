import type { Messages } from './types.ts'

/** Korean. */
export const ko: Messages = {
  lang: 'ko',
  dir: 'ltr',
  title: '대기 중입니다',
  heading: '대기열에 등록되었습니다',
  intro: '현재 접속자가 많아 사이트가 혼잡합니다. 기다려 주셔서 감사합니다. 순서가 되면 자동으로 입장됩니다.',
  waitLabel: '예상 대기 시간',
  waitAbout: '약 {time}',
  waitUnknown: '알 수 없음',
  refreshNote: '이 페이지는 자동으로 새로고침됩니다. 페이지를 열어 두세요. 새로고침해도 순서가 앞당겨지지 않습니다.',
  randomNote: '입장 순서는 대기 중인 모든 사용자 중에서 무작위로 추첨되므로 대기 시간은 범위로 표시됩니다.',
  rejectHeading: '현재 이 사이트는 방문자를 받지 않습니다',
  rejectIntro: '나중에 다시 방문해 주세요.',
  lastUpdatedLabel: '마지막 업데이트',
  waitBetween: '{from}~{to}',
}
