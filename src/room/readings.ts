/**
 * @module
 * The plausible server readings of an ambiguous path, so a room fails closed against the room next to it.
 * Servers and frameworks disagree on what `/checkout;jsessionid=1`, `//checkout`, `/checkout%2F`,
 * `/x/..%2fcheckout`, `/checkout%00`, `/checkout.` or `/checkout%20` mean; some origin reads each as
 * `/checkout`. A room whose route matches any reading ranks as that route (routes.ts), so the most specific
 * plausible room decides — never a catch-all room next to it, whose ticket would then open `/checkout`.
 *
 * The readings: percent-decoding applied 0, 1 or 2 times (tolerantly: a malformed escape stays as is); then
 * none or all of the cleanings below (with or without cutting at a NUL); then dot segments kept or
 * resolved. Route paths are plain (coverage.ts refuses `; \ % //` and dot segments in them), so a cleaning
 * only ever makes a reading closer to a route, and these 18 readings stand for every combination.
 */

/** Paths whose readings may differ from the routed one: `UNUSUAL` (coverage.ts) plus a segment ending in `.`. */
export const MAY_DIFFER = /[^A-Za-z0-9\-._~!$&'()*+,=:@/]|\/\/|\/\.\.?(?:\/|$)|\.(?:\/|$)/

/** Decodes what decodes; a malformed or overlong escape is kept as written. */
function decodeTolerant(path: string): string {
  try {
    return decodeURIComponent(path)
  } catch {
    return path.replace(/(?:%[0-9a-fA-F]{2})+/g, (run) => {
      try {
        return decodeURIComponent(run)
      } catch {
        return run.replace(/%([0-7][0-9a-fA-F])/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)))
      }
    })
  }
}

/** `\` as `/`, look-alikes folded, `;params` dropped, trailing dots/spaces/controls trimmed, `//` merged. */
function clean(path: string, cutAtNul: boolean): string {
  let out = path.replace(/\\/g, '/').normalize('NFKC')
  if (cutAtNul) out = out.split('\0')[0]!
  out = out.replace(/;[^/]*/g, '')
  out = out
    .split('/')
    .map((segment) => (segment === '.' || segment === '..' ? segment : segment.replace(/[.\x00-\x20\x7f]+$/, '')))
    .join('/')
  return out.replace(/\/{2,}/g, '/')
}

/** RFC 3986 remove_dot_segments, on a path that starts with `/`. */
function resolveDots(path: string): string {
  const out: string[] = []
  const segments = path.split('/').slice(1)
  segments.forEach((segment, index) => {
    const last = index === segments.length - 1
    if (segment === '..') out.pop()
    else if (segment !== '.') out.push(segment)
    if ((segment === '.' || segment === '..') && last) out.push('')
  })
  return '/' + out.join('/')
}

/** Every plausible reading of a raw (percent-encoded) path, deduplicated. */
export function plausibleReadings(raw: string): string[] {
  const readings = new Set<string>()
  let decoded = raw
  for (let level = 0; level < 3; level++) {
    if (level > 0) decoded = decodeTolerant(decoded)
    const start = decoded.startsWith('/') ? decoded : `/${decoded}`
    for (const cleaned of [start, clean(start, false), clean(start, true)]) {
      const path = cleaned.startsWith('/') ? cleaned : `/${cleaned}`
      readings.add(path)
      readings.add(resolveDots(path))
    }
  }
  return [...readings]
}
