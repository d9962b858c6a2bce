/**
 * @module
 * Pages rendered once per shape, filled per request. Rendering the built-in page through Mustache costs
 * ~20 µs, on every queue response — a cookieless flood's main cost after the ticket (issue 16). Yet most
 * of a page depends only on its shape: the template, its texts, and the values its sections test. So a
 * template's variables are split by how it uses them:
 *
 * - **holes**: variables it only prints (`{{x}}`, `{{{x}}}`). The skeleton is rendered once with a marker
 *   in place of each, and a request's page is the skeleton with its own values put in, escaped as Mustache
 *   would have. These are the per-user values — refresh interval, wait, time — so they are never shared.
 * - **shape**: variables a section tests or a dotted name reads (`{{#x}}`, `{{^x}}`, `{{x.y}}`): part of
 *   the skeleton's key, with the texts object.
 * - variables it never names cannot change its output.
 *
 * A page is therefore exactly what Mustache renders for the same view (test/page-skeleton.test.ts checks
 * that for generated templates and views), and each new skeleton is checked once against a full render of
 * the view it was made for. Where that check fails, or it cannot hold — `Mustache.escape` replaced, a
 * template containing the marker character, a function in a view — pages are rendered in full.
 */
import Mustache from 'mustache'

/** The value a view may hold: primitives, and objects (the texts) keyed by identity. */
type ViewValue = string | number | boolean | null | undefined | object
export type View = Record<string, ViewValue>

interface Usage {
  /** Names only printed. */
  holes: Set<string>
  /** Names tested by sections or read through dotted names. */
  shape: string[]
  /** The template contains the marker character: never compiled. */
  unsafe: boolean
}

/** A template rendered for one shape (exported for ./open-page.ts). */
export interface Skeleton {
  /** Static text around the holes: one more than `fields`. */
  parts: string[]
  fields: string[]
  escaped: boolean[]
  /** The parts as UTF-8, made on the first page asked for as bytes; undefined: never (see {@link byteSafe}). */
  bytes?: Uint8Array[] | undefined
}

const MARK = '\u0000'
/** `\0<n>&\0`: Mustache's escaping turns the `&` into `&amp;`, which tells an escaped hole from a raw one. */
const HOLE = /\u0000(\d+)(&|&amp;)\u0000/g
const originalEscape = Mustache.escape

type Token = [string, string, number, number, Token[]?]

/** How `template` uses names: walked once per template (Mustache caches the parse). */
function usageOf(template: string): Usage {
  const printed = new Set<string>()
  const shape = new Set<string>()
  const walk = (tokens: Token[]): void => {
    for (const token of tokens) {
      const [type, name] = token
      if (type === '#' || type === '^') {
        shape.add(name.split('.')[0]!)
        walk(token[4] ?? [])
      } else if (type === 'name' || type === '&') {
        if (name.includes('.')) shape.add(name.split('.')[0]!)
        else printed.add(name)
      }
    }
  }
  walk(Mustache.parse(template) as unknown as Token[])
  const holes = new Set([...printed].filter((name) => !shape.has(name)))
  return { holes, shape: [...shape], unsafe: template.includes(MARK) }
}

const objectIds = new WeakMap<object, number>()
let nextObjectId = 0

/** A name's value: from `extras` when it has the name, else from `view` (so no merged copy per request). */
const valueOf = (view: View, extras: View, name: string): ViewValue => (name in extras ? extras[name] : view[name])

/** The key of a view's shape: the values of the shape names, objects by identity. */
function shapeKey(usage: Usage, view: View, extras: View): string {
  let key = ''
  for (const name of usage.shape) {
    const value = valueOf(view, extras, name)
    if (typeof value === 'object' && value !== null) {
      let id = objectIds.get(value)
      if (id === undefined) objectIds.set(value, (id = nextObjectId++))
      key += `o${id}\n`
    } else key += `${typeof value}:${String(value)}\n`
  }
  return key
}

function compile(template: string, usage: Usage, view: View): Skeleton {
  const marked: View = { ...view } // the merged view: a copy
  const names = [...usage.holes]
  // Every hole, present or not: a name one view leaves out (an optional variable) may be set in the next.
  names.forEach((name, i) => (marked[name] = `${MARK}${i}&${MARK}`))
  const rendered = Mustache.render(template, marked)
  const parts: string[] = []
  const fields: string[] = []
  const escaped: boolean[] = []
  let from = 0
  for (const match of rendered.matchAll(HOLE)) {
    parts.push(rendered.slice(from, match.index))
    fields.push(names[Number(match[1])]!)
    escaped.push(match[2] === '&amp;')
    from = match.index + match[0].length
  }
  parts.push(rendered.slice(from))
  return { parts, fields, escaped }
}

/** A hole's text, as Mustache's `escapedValue` / `unescapedValue` make it. */
function printed(value: ViewValue, escaped: boolean): string {
  if (value === null || value === undefined) return ''
  if (!escaped || typeof value === 'number') return String(value)
  return Mustache.escape(value)
}

/** The skeleton filled with a view's values; undefined when a value is a function (Mustache would call it). */
function fill({ parts, fields, escaped }: Skeleton, view: View, extras: View): string | undefined {
  let out = parts[0]!
  for (let i = 0; i < fields.length; i++) {
    const value = valueOf(view, extras, fields[i]!)
    if (typeof value === 'function') return undefined
    out += printed(value, escaped[i]!) + parts[i + 1]!
  }
  return out
}

/** Typed structurally: the published .d.ts must not name TextEncoder (consumers without the DOM lib have no such type). */
export const encoder: { encode(input?: string): Uint8Array; encodeInto(source: string, destination: Uint8Array): { read: number; written: number } } = new TextEncoder()
const isHigh = (code: number): boolean => code >= 0xd800 && code <= 0xdbff
const isLow = (code: number): boolean => code >= 0xdc00 && code <= 0xdfff

/**
 * True when encoding `text` on its own gives the bytes it has inside any page: it neither starts with a low
 * surrogate nor ends with a high one (which a neighbour could pair into one character, where alone each
 * encodes as U+FFFD).
 */
const byteSafe = (text: string): boolean => text.length === 0 || (!isLow(text.charCodeAt(0)) && !isHigh(text.charCodeAt(text.length - 1)))

/** Writes `text` as UTF-8 into `out` at `at`; the bytes written. ASCII byte by byte: hole values are short. */
function writeText(out: Uint8Array, at: number, text: string): number {
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i)
    if (code >= 0x80) return i + encoder.encodeInto(text.slice(i), out.subarray(at + i)).written
    out[at + i] = code
  }
  return text.length
}

/**
 * {@link fill} as UTF-8: the parts encoded once per skeleton, only the values per page — encoding a whole
 * 2.6 KB page was the largest single cost of a queued user's page on Bun (15%, more than sealing the ticket)
 * and ~4% on Node, once the wait changes with every turn of the event loop (a flood against a full room).
 * The same bytes as encoding the filled text: undefined where a surrogate at a boundary could make them differ.
 */
export function fillBytes(skeleton: Skeleton, view: View, extras: View): Uint8Array<ArrayBuffer> | undefined {
  const { fields, escaped } = skeleton
  if (skeleton.bytes === undefined) {
    if (!skeleton.parts.every(byteSafe)) return undefined
    skeleton.bytes = skeleton.parts.map((part) => encoder.encode(part))
  }
  const parts = skeleton.bytes
  const texts = new Array<string>(fields.length)
  let size = 0
  for (const part of parts) size += part.length
  for (let i = 0; i < fields.length; i++) {
    const value = valueOf(view, extras, fields[i]!)
    if (typeof value === 'function') return undefined
    const text = (texts[i] = printed(value, escaped[i]!))
    if (!byteSafe(text)) return undefined
    size += text.length * 3 // at most 3 bytes per UTF-16 unit
  }
  const out = new Uint8Array(size)
  out.set(parts[0]!)
  let at = parts[0]!.length
  for (let i = 0; i < texts.length; i++) {
    at += writeText(out, at, texts[i]!)
    out.set(parts[i + 1]!, at)
    at += parts[i + 1]!.length
  }
  return out.subarray(0, at)
}

/** Most skeletons kept per template (shapes: texts × the values sections test); past this, start over. */
const MAX_SKELETONS = 512
/** Most templates kept (the built-in one, the operator's, and ones the admin API previews). */
const MAX_TEMPLATES = 8
/** Per template: its usage, and skeletons by shape key (null: this shape is always rendered in full). */
const templates = new Map<string, { usage: Usage; skeletons: Map<string, Skeleton | null> }>()

export const NO_EXTRAS: View = {}

/** The skeleton for a view's shape, or the full render when there is none yet or none can be made. */
export function skeletonFor(template: string, view: View, extras: View): { skeleton: Skeleton | null; full?: undefined } | { full: string; skeleton?: Skeleton | null } {
  let entry = templates.get(template)
  if (!entry) {
    if (templates.size >= MAX_TEMPLATES) templates.clear()
    templates.set(template, (entry = { usage: usageOf(template), skeletons: new Map() }))
  }
  const merged = () => (extras === NO_EXTRAS ? view : { ...view, ...extras })
  if (entry.usage.unsafe || Mustache.escape !== originalEscape) return { full: Mustache.render(template, merged()) }
  const key = shapeKey(entry.usage, view, extras)
  let skeleton = entry.skeletons.get(key)
  if (skeleton === undefined) {
    if (entry.skeletons.size >= MAX_SKELETONS) entry.skeletons.clear()
    const whole = merged()
    skeleton = compile(template, entry.usage, whole)
    const full = Mustache.render(template, whole)
    if (fill(skeleton, whole, NO_EXTRAS) !== full) skeleton = null // something the split does not model: keep rendering in full
    entry.skeletons.set(key, skeleton)
    return { full, skeleton }
  }
  return { skeleton }
}

/** The full render of `view` with `extras` over it, through Mustache. */
export const renderFull = (template: string, view: View, extras: View): string => Mustache.render(template, extras === NO_EXTRAS ? view : { ...view, ...extras })

/**
 * `Mustache.render(template, { ...view, ...extras })`, from a skeleton of the view's shape when it can be.
 * `extras` are the few names a caller adds to a large view, without copying the view on every request.
 */
export function renderFromSkeleton(template: string, view: View, extras: View = NO_EXTRAS): string {
  const found = skeletonFor(template, view, extras)
  if (found.full !== undefined) return found.full
  return (found.skeleton && fill(found.skeleton, view, extras)) ?? renderFull(template, view, extras)
}

/** {@link renderFromSkeleton} as UTF-8: exactly `new TextEncoder().encode(renderFromSkeleton(…))`, made faster. */
export function renderBytesFromSkeleton(template: string, view: View, extras: View = NO_EXTRAS): Uint8Array<ArrayBuffer> {
  const found = skeletonFor(template, view, extras)
  if (found.full !== undefined) return encoder.encode(found.full) as Uint8Array<ArrayBuffer>
  return (found.skeleton && fillBytes(found.skeleton, view, extras)) ?? (encoder.encode(renderFromSkeleton(template, view, extras)) as Uint8Array<ArrayBuffer>)
}

/** The names `template` tests in sections or reads through dotted names: they shape its pages. */
export function shapeNamesOf(template: string): readonly string[] {
  return templates.get(template)?.usage.shape ?? usageOf(template).shape
}
