import type { Messages } from './types.ts'

/**
 * Russian. `waitAbout` uses "примерно" rather than "около": "около" takes the genitive ("около 2 минут")
 * while Intl gives the nominative ("2 минуты").
 */
export const ru: Messages = {
  lang: 'ru',
  dir: 'ltr',
  title: 'Вы в очереди',
  heading: 'Теперь вы в очереди',
  intro: 'Сейчас сайт сильно загружен. Спасибо за терпение — вы попадёте на сайт автоматически, когда подойдёт ваша очередь.',
  waitLabel: 'Расчётное время ожидания',
  waitAbout: 'примерно {time}',
  waitUnknown: 'неизвестно',
  refreshNote: 'Страница обновляется автоматически. Не закрывайте её; перезагрузка не продвинет вас в очереди.',
  randomNote: 'Места распределяются случайным образом среди всех ожидающих, поэтому время ожидания указано диапазоном.',
  rejectHeading: 'Сейчас сайт не принимает посетителей',
  rejectIntro: 'Пожалуйста, зайдите позже.',
  lastUpdatedLabel: 'Последнее обновление',
  waitBetween: '{from} – {to}',
}
