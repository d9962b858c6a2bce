/**
 * @module
 * Texts of the built-in queue page, per language, chosen by `Accept-Language` or the room's default
 * (`defaultTemplateLanguage`). One file per language beside this one; add a language by adding its file,
 * its code to {@link LANGUAGES} and its entry to {@link MESSAGES}.
 */
import type { Messages } from './types.ts'
import { ar } from './ar.ts'
import { bg } from './bg.ts'
import { cs } from './cs.ts'
import { da } from './da.ts'
import { de } from './de.ts'
import { el } from './el.ts'
import { en } from './en.ts'
import { es } from './es.ts'
import { fa } from './fa.ts'
import { fi } from './fi.ts'
import { fr } from './fr.ts'
import { he } from './he.ts'
import { hi } from './hi.ts'
import { hr } from './hr.ts'
import { hu } from './hu.ts'
import { id } from './id.ts'
import { it } from './it.ts'
import { ja } from './ja.ts'
import { ko } from './ko.ts'
import { lt } from './lt.ts'
import { lv } from './lv.ts'
import { ms } from './ms.ts'
import { nb } from './nb.ts'
import { nl } from './nl.ts'
import { pl } from './pl.ts'
import { pt } from './pt.ts'
import { ro } from './ro.ts'
import { ru } from './ru.ts'
import { sk } from './sk.ts'
import { sl } from './sl.ts'
import { sr } from './sr.ts'
import { sv } from './sv.ts'
import { th } from './th.ts'
import { tl } from './tl.ts'
import { tr } from './tr.ts'
import { uk } from './uk.ts'
import { vi } from './vi.ts'
import { zhHant } from './zh-hant.ts'
import { zh } from './zh.ts'

export type { Messages }

/**
 * The languages of the built-in page, by the code `chooseLanguage` returns and `defaultTemplateLanguage`
 * takes (which also takes Cloudflare's codes, {@link CLOUDFLARE_LANGUAGES}). `zh` is Simplified Chinese,
 * `zh-Hant` Traditional; `sr` is Serbian in Latin script; `tl` is Filipino.
 */
export const LANGUAGES = [
  'en', 'es', 'fr', 'de', 'it', 'pt', 'nl', 'pl', 'ja', 'zh', 'zh-Hant', 'ko', 'ar', 'he', 'hi', 'tr', 'ru', 'uk', 'id',
  'fa', 'bg', 'hr', 'cs', 'da', 'fi', 'lt', 'lv', 'ms', 'nb', 'ro', 'el', 'hu', 'sr', 'sk', 'sl', 'sv', 'tl', 'th', 'vi',
] as const

/**
 * Cloudflare Waiting Room's `default_template_language` values: the 38 of its API reference (Terraform
 * provider 5.x, `waiting_room.default_template_language`) and `lv-LV`, which later lists add. Each one
 * names one of {@link LANGUAGES} (`pt-BR` → `pt`, `zh-TW` → `zh-Hant`, `sr-BA` → `sr`, `tl-PH` → `tl`).
 */
export const CLOUDFLARE_LANGUAGES = [
  'en-US', 'es-ES', 'de-DE', 'fr-FR', 'it-IT', 'ja-JP', 'ko-KR', 'pt-BR', 'zh-CN', 'zh-TW', 'nl-NL', 'pl-PL', 'id-ID',
  'tr-TR', 'ar-EG', 'ru-RU', 'fa-IR', 'bg-BG', 'hr-HR', 'cs-CZ', 'da-DK', 'fi-FI', 'lt-LT', 'ms-MY', 'nb-NO', 'ro-RO',
  'el-GR', 'he-IL', 'hi-IN', 'hu-HU', 'sr-BA', 'sk-SK', 'sl-SI', 'sv-SE', 'tl-PH', 'th-TH', 'uk-UA', 'vi-VN', 'lv-LV',
] as const

/** What `defaultTemplateLanguage` takes: our codes and Cloudflare's. */
export const TEMPLATE_LANGUAGES = [...LANGUAGES, ...CLOUDFLARE_LANGUAGES] as const

const TEMPLATE_BY_LOWER_CASE = new Map<string, string>(TEMPLATE_LANGUAGES.map((code) => [code.toLowerCase(), code]))

/** A `defaultTemplateLanguage` in any case (`EN-us`), as listed (`en-US`); anything else unchanged. */
export const templateLanguageOf = (value: unknown): unknown => (typeof value === 'string' ? (TEMPLATE_BY_LOWER_CASE.get(value.toLowerCase()) ?? value) : value)

export type Language = (typeof LANGUAGES)[number]

const BY_LANGUAGE: Record<Language, Messages> = {
  en, es, fr, de, it, pt, nl, pl, ja, zh, 'zh-Hant': zhHant, ko, ar, he, hi, tr, ru, uk, id,
  fa, bg, hr, cs, da, fi, lt, lv, ms, nb, ro, el, hu, sr, sk, sl, sv, tl, th, vi,
}

/** Every language's texts, by the codes in {@link LANGUAGES}. */
export const MESSAGES: Record<string, Messages> = BY_LANGUAGE

/** Lower-cased code → code, for case-insensitive matching. */
const BY_LOWER_CASE = new Map<string, Language>(LANGUAGES.map((code) => [code.toLowerCase(), code]))

/**
 * Deprecated primary subtags still sent by some clients, and codes read in a language we have: Norwegian
 * (`no`) and Nynorsk readers read Bokmål, `fil` is the ISO 639-2 code of Filipino.
 */
const LEGACY: Record<string, string> = { iw: 'he', in: 'id', no: 'nb', nn: 'nb', fil: 'tl' }

/** Regions whose Chinese is written in Traditional characters. */
const TRADITIONAL_REGIONS = new Set(['tw', 'hk', 'mo'])

/**
 * The scripts our texts are written in, where not Latin alone: a tag naming another script (`sr-Cyrl-RS`:
 * our Serbian is Latin) matches none of ours, so the next entry or the default language is used instead.
 */
const SCRIPTS: Partial<Record<Language, readonly string[]>> = {
  ar: ['arab'], fa: ['arab'], he: ['hebr'], hi: ['deva'], ru: ['cyrl'], uk: ['cyrl'], bg: ['cyrl'], el: ['grek'],
  ja: ['jpan', 'hira', 'kana', 'hrkt'], ko: ['kore', 'hang'], th: ['thai'],
}

/** Only this much of an `Accept-Language` header is read, and at most this many of its entries. */
const MAX_HEADER_LENGTH = 1024
const MAX_ENTRIES = 20

const TAG = /^[a-z]{1,8}(?:-[a-z0-9]{1,8})*$/
const QVALUE = /^(?:0(?:\.\d*)?|1(?:\.0*)?|\.\d+)$/

/** Chinese: script subtag first (`Hant`/`Hans`), else region (TW, HK, MO → Traditional), else Simplified. */
function chineseVariant(subtags: readonly string[]): Language {
  let traditional = subtags[0] === 'yue' // Cantonese is mostly read in Traditional characters
  for (const subtag of subtags.slice(1)) {
    if (subtag.length === 1) break // an extension or private use: no script or region after it
    if (subtag === 'hant') return 'zh-Hant'
    if (subtag === 'hans') return 'zh'
    if (TRADITIONAL_REGIONS.has(subtag)) traditional = true
  }
  return traditional ? 'zh-Hant' : 'zh'
}

/**
 * RFC 4647 lookup of one language tag among ours: the whole tag, then shorter by one subtag at a time
 * (`de-CH-1996` → `de-CH` → `de`), skipping a trailing singleton. Case-insensitive.
 */
function lookup(tag: string): Language | undefined {
  const normalized = tag.trim().toLowerCase().replaceAll('_', '-')
  if (!TAG.test(normalized)) return undefined
  const subtags = normalized.split('-')
  subtags[0] = LEGACY[subtags[0]!] ?? subtags[0]!
  if (subtags[0] === 'zh' || subtags[0] === 'yue') return chineseVariant(subtags)
  const script = subtags[1] !== undefined && /^[a-z]{4}$/.test(subtags[1]) ? subtags[1] : undefined
  for (let length = subtags.length; length > 0; length--) {
    if (subtags[length - 1]!.length === 1) continue
    const code = BY_LOWER_CASE.get(subtags.slice(0, length).join('-'))
    if (code) return script === undefined || (SCRIPTS[code] ?? ['latn']).includes(script) ? code : undefined
  }
  return undefined
}

/** The entries of an `Accept-Language` header with q > 0, best first (stable for equal q); junk is skipped. */
function parseAcceptLanguage(header: string): string[] {
  let text = header
  if (text.length > MAX_HEADER_LENGTH) {
    // Cut at the last whole entry: a truncated one could turn `en-US;q=0.5` into `en` (q=1).
    text = text.slice(0, MAX_HEADER_LENGTH)
    text = text.slice(0, Math.max(0, text.lastIndexOf(',')))
  }
  const entries: { tag: string; q: number }[] = []
  for (const part of text.split(',', MAX_ENTRIES)) {
    const [tag = '', ...params] = part.split(';')
    const trimmed = tag.trim()
    if (trimmed === '' || trimmed === '*') continue
    let q = 1
    let valid = true
    for (const param of params) {
      const match = /^\s*q\s*=\s*(\S*)\s*$/i.exec(param)
      if (!match) continue
      valid = QVALUE.test(match[1]!)
      q = Number(match[1])
      break
    }
    if (valid && q > 0) entries.push({ tag: trimmed, q })
  }
  return entries.sort((a, b) => b.q - a.q).map((entry) => entry.tag)
}

/**
 * The best language for an `Accept-Language` header among those we have (q-values honoured, regions and
 * Chinese scripts resolved, `*` ignored); else `fallback` if we have it (matched the same way, so `de-CH`
 * or `zh-TW` work), else `en`. Never throws; reads at most the first 1 KB and 20 entries of the header.
 */
export function chooseLanguage(acceptLanguage: string | undefined, fallback: string): Language {
  if (typeof acceptLanguage === 'string' && acceptLanguage !== '') {
    for (const tag of parseAcceptLanguage(acceptLanguage)) {
      const code = lookup(tag)
      if (code) return code
    }
  }
  return (typeof fallback === 'string' ? lookup(fallback) : undefined) ?? 'en'
}

/**
 * Choices by fallback, then header: browsers send a handful of distinct headers, and parsing one costs
 * µs on every queue response. Headers longer than the parser reads are not remembered.
 */
const chosen = new Map<string, Map<string, Language>>()
/** Most headers remembered per fallback; past this the memo starts over (random headers gain nothing). */
const MAX_CHOSEN = 512

/** The texts for an `Accept-Language` header, as {@link chooseLanguage} picks them. */
export function messagesFor(acceptLanguage: string | undefined, fallback: string): Messages {
  const header = acceptLanguage ?? ''
  if (header.length > MAX_HEADER_LENGTH) return BY_LANGUAGE[chooseLanguage(header, fallback)]
  let byHeader = chosen.get(fallback)
  if (!byHeader) {
    if (chosen.size >= 8) chosen.clear()
    chosen.set(fallback, (byHeader = new Map()))
  }
  let code = byHeader.get(header)
  if (code === undefined) {
    code = chooseLanguage(header, fallback)
    if (byHeader.size >= MAX_CHOSEN) byHeader.clear()
    byHeader.set(header, code)
  }
  return BY_LANGUAGE[code]
}
