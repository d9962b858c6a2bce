/**
 * @module
 * Case-insensitive comparisons of header text in place, for the proxy's per-request paths: no lower-cased copy.
 */

/** Whether `text` at `at` is `lower` in any case (`lower`: lower-case letters and `-`; exact for header text, which holds no control character `| 0x20` would turn into one of those). */
export function sameLower(text: string, at: number, lower: string): boolean {
  if (text.length - at < lower.length) return false
  for (let i = 0; i < lower.length; i++) if ((text.charCodeAt(at + i) | 0x20) !== lower.charCodeAt(i)) return false
  return true
}

/** Whether `text` is `lower`, in any case. */
export const isLower = (text: string, lower: string): boolean => text.length === lower.length && sameLower(text, 0, lower)
