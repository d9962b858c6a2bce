/**
 * @module
 * The few statistics the simulator reports.
 */

/** Ranks 1..n, ties sharing their average rank (what Spearman's ρ needs). */
export function ranks(values: readonly number[]): number[] {
  const order = values.map((_, i) => i).sort((a, b) => values[a]! - values[b]!)
  const result = new Array<number>(values.length)
  for (let start = 0; start < order.length; ) {
    let end = start
    while (end + 1 < order.length && values[order[end + 1]!] === values[order[start]!]) end++
    const rank = (start + end) / 2 + 1
    for (let i = start; i <= end; i++) result[order[i]!] = rank
    start = end + 1
  }
  return result
}

/** Pearson correlation; undefined when either side has no variance. */
export function pearson(x: readonly number[], y: readonly number[]): number | undefined {
  const n = x.length
  if (n !== y.length || n < 2) return undefined
  let mx = 0
  let my = 0
  for (let i = 0; i < n; i++) {
    mx += x[i]!
    my += y[i]!
  }
  mx /= n
  my /= n
  let sxy = 0
  let sxx = 0
  let syy = 0
  for (let i = 0; i < n; i++) {
    const dx = x[i]! - mx
    const dy = y[i]! - my
    sxy += dx * dy
    sxx += dx * dx
    syy += dy * dy
  }
  return sxx === 0 || syy === 0 ? undefined : sxy / Math.sqrt(sxx * syy)
}

/** Spearman's rank correlation ρ (Pearson on tie-averaged ranks). */
export const spearman = (x: readonly number[], y: readonly number[]): number | undefined => pearson(ranks(x), ranks(y))

/** The q-quantile (0..1) of sorted values, linearly interpolated; undefined for none. */
export function quantile(sorted: readonly number[], q: number): number | undefined {
  if (sorted.length === 0) return undefined
  const at = (sorted.length - 1) * q
  const low = Math.floor(at)
  const high = Math.ceil(at)
  return sorted[low]! + (sorted[high]! - sorted[low]!) * (at - low)
}

/** Rounds to `digits` decimals (for tables and JSON that read well). */
export const round = (value: number, digits = 1): number => {
  const factor = 10 ** digits
  return Math.round(value * factor) / factor
}
