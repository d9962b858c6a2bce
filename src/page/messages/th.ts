import type { Messages } from './types.ts'

/** Thai. */
export const th: Messages = {
  lang: 'th',
  dir: 'ltr',
  title: 'คุณอยู่ในคิว',
  heading: 'ขณะนี้คุณอยู่ในคิวแล้ว',
  intro: 'เว็บไซต์นี้มีผู้ใช้งานจำนวนมากในขณะนี้ ขอบคุณที่รอ — ระบบจะพาคุณเข้าสู่เว็บไซต์โดยอัตโนมัติ',
  waitLabel: 'เวลารอโดยประมาณ',
  waitAbout: 'ประมาณ {time}',
  waitUnknown: 'ไม่ทราบ',
  refreshNote: 'หน้านี้จะรีเฟรชเอง โปรดเปิดค้างไว้ การโหลดหน้าใหม่จะไม่ทำให้คุณได้คิวเร็วขึ้น',
  randomNote: 'ระบบจะสุ่มเลือกผู้ที่ได้เข้าจากทุกคนที่รออยู่ เวลารอจึงแสดงเป็นช่วง',
  rejectHeading: 'ขณะนี้เว็บไซต์ไม่รับผู้เข้าชม',
  rejectIntro: 'โปรดกลับมาใหม่ภายหลัง',
  lastUpdatedLabel: 'อัปเดตล่าสุด',
  waitBetween: '{from} ถึง {to}',
}
