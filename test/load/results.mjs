/**
 * Merging what the generator processes report (the burst and bots cases): status and error counts added up,
 * latencies in one sorted list, and a percentile of it.
 */

/** The value at quantile `q` of an ascending list (0 for an empty one). */
export const percentile = (sorted, q) => (sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] : 0)

export function mergeResults(results) {
  const sum = (key) => results.reduce((total, r) => total + r[key], 0)
  const statuses = {}
  const errors = {}
  for (const r of results) {
    for (const [status, n] of Object.entries(r.statuses)) statuses[status] = (statuses[status] ?? 0) + n
    for (const [code, n] of Object.entries(r.errors)) errors[code] = (errors[code] ?? 0) + n
  }
  const latencies = results.flatMap((r) => r.latencies).sort((a, b) => a - b)
  return { sum, statuses, errors, latencies }
}
