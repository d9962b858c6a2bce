import type { Messages } from './types.ts'

/** Vietnamese. */
export const vi: Messages = {
  lang: 'vi',
  dir: 'ltr',
  title: 'Bạn đang trong hàng chờ',
  heading: 'Bạn đã vào hàng chờ',
  intro: 'Trang web hiện đang quá tải. Cảm ơn bạn đã kiên nhẫn — bạn sẽ được vào tự động.',
  waitLabel: 'Thời gian chờ ước tính',
  waitAbout: 'khoảng {time}',
  waitUnknown: 'không xác định',
  refreshNote: 'Trang này tự làm mới. Hãy giữ trang mở; tải lại trang không giúp bạn lên trước.',
  randomNote: 'Lượt vào được bốc thăm ngẫu nhiên trong số tất cả những người đang chờ, nên thời gian chờ là một khoảng.',
  rejectHeading: 'Trang web hiện không tiếp nhận khách truy cập',
  rejectIntro: 'Vui lòng quay lại sau.',
  lastUpdatedLabel: 'Cập nhật lần cuối',
  waitBetween: 'từ {from} đến {to}',
}
