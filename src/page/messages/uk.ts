import type { Messages } from './types.ts'

/** Ukrainian. `waitAbout` uses the adverb "приблизно", which leaves Intl's case forms grammatical. */
export const uk: Messages = {
  lang: 'uk',
  dir: 'ltr',
  title: 'Ви в черзі',
  heading: 'Тепер ви в черзі',
  intro: 'Зараз сайт дуже завантажений. Дякуємо за терпіння — ви потрапите на сайт автоматично, щойно настане ваша черга.',
  waitLabel: 'Орієнтовний час очікування',
  waitAbout: 'приблизно {time}',
  waitUnknown: 'невідомо',
  refreshNote: 'Сторінка оновлюється автоматично. Не закривайте її; перезавантаження не просуне вас у черзі.',
  randomNote: 'Місця розподіляються випадково серед усіх, хто чекає, тому час очікування вказано як діапазон.',
  rejectHeading: 'Зараз сайт не приймає відвідувачів',
  rejectIntro: 'Будь ласка, поверніться пізніше.',
  lastUpdatedLabel: 'Останнє оновлення',
  waitBetween: '{from} – {to}',
}
