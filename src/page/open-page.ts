/**
 * @module
 * Pages with some holes left open (./page-skeleton.ts): a queued user's page differs from the next one's in
 * the jittered refresh interval alone (~60 values), so the page kept for a wait leaves that hole open and each
 * answer puts its own value in — a copy of the bytes, not a render (issue 16).
 */
import { encoder, fillBytes, NO_EXTRAS, renderFull, shapeNamesOf, skeletonFor, type Skeleton, type View } from './page-skeleton.ts'

/**
 * A page with some holes left open: its UTF-8 bytes around them (one more part than `fields`), for values that
 * differ between users otherwise served the same page — a queued user's jittered refresh interval, one of ~60
 * (pipeline/respond.ts). {@link closePage} puts them in.
 */
export interface OpenPage {
  parts: Uint8Array[]
  fields: string[]
  escaped: boolean[]
}

/** Each skeleton split at the holes left open, by the open names. */
const openSplits = new WeakMap<Skeleton, Map<string, Skeleton[]>>()

/** `skeleton` as one skeleton per run of holes between the `open` ones. */
function splitAt(skeleton: Skeleton, open: readonly string[]): Skeleton[] {
  let splits = openSplits.get(skeleton)
  if (!splits) openSplits.set(skeleton, (splits = new Map()))
  const key = open.join('\n')
  let pieces = splits.get(key)
  if (pieces === undefined) {
    pieces = []
    let piece: Skeleton = { parts: [skeleton.parts[0]!], fields: [], escaped: [] }
    skeleton.fields.forEach((field, i) => {
      if (open.includes(field)) {
        pieces!.push(piece)
        piece = { parts: [skeleton.parts[i + 1]!], fields: [], escaped: [] }
      } else {
        piece.fields.push(field)
        piece.escaped.push(skeleton.escaped[i]!)
        piece.parts.push(skeleton.parts[i + 1]!)
      }
    })
    pieces.push(piece)
    splits.set(key, pieces)
  }
  return pieces
}

/**
 * The page {@link renderBytesFromSkeleton} makes, with the holes named in `open` left open: `closePage(page,
 * values)` is then exactly the page rendered with those values in the view. The page itself, as bytes, when
 * they cannot be left open: the template tests one of them in a section (its value shapes the page), or the
 * page is not made from a skeleton.
 */
export function openPageBytes(template: string, view: View, open: readonly string[], extras: View = NO_EXTRAS): OpenPage | Uint8Array<ArrayBuffer> {
  const found = skeletonFor(template, view, extras)
  const { skeleton } = found
  if (skeleton && !shapeNamesOf(template).some((name) => open.includes(name))) {
    const parts: Uint8Array[] = []
    for (const piece of splitAt(skeleton, open)) {
      const bytes = fillBytes(piece, view, extras)
      if (bytes === undefined) break
      parts.push(bytes)
    }
    const opened = skeleton.fields.map((field) => open.includes(field))
    if (parts.length === opened.filter(Boolean).length + 1) {
      return { parts, fields: skeleton.fields.filter((_, i) => opened[i]), escaped: skeleton.escaped.filter((_, i) => opened[i]) }
    }
  }
  if (found.full !== undefined) return encoder.encode(found.full) as Uint8Array<ArrayBuffer>
  return (skeleton && fillBytes(skeleton, view, extras)) ?? (encoder.encode(renderFull(template, view, extras)) as Uint8Array<ArrayBuffer>)
}

/** An open page with `values` in its holes; undefined when a value is not one a skeleton can take. */
export function closePage(page: OpenPage, values: View): Uint8Array<ArrayBuffer> | undefined {
  return fillBytes({ parts: [], fields: page.fields, escaped: page.escaped, bytes: page.parts }, values, NO_EXTRAS)
}
