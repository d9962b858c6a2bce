/**
 * @module
 * Which locations changed between two answers of one global aggregator, for a reader that keeps something per
 * location (the snapshot builder). With 300 locations and one of them changed per exchange, reading every
 * location of every answer again was, after the decisions themselves, the simulator's largest cost (issue 15);
 * a real worker facing many locations saves the same. A side table, not part of the state: an answer without an
 * entry (another coordinator, a restarted stage, a change too far back) is read in full, as before.
 */

/** Answers kept per aggregator: a reader further behind than this reads the answer in full. */
const KEPT = 64

export interface ChangeLog {
  /** Version of the newest answer. */
  version: number
  /** Names stored before each of the last answers (newest last); undefined when a location was dropped. */
  recent: (readonly string[] | undefined)[]
}

export const newChangeLog = (): ChangeLog => ({ version: 0, recent: [] })

const versions = new WeakMap<object, { log: ChangeLog; version: number }>()

/** Notes that `record` is `log`'s next answer, made after `changed` were stored (`dropped`: a location was removed). */
export function recordAnswer(log: ChangeLog, record: object, changed: ReadonlySet<string>, dropped: boolean): void {
  log.version++
  log.recent.push(dropped ? undefined : [...changed])
  if (log.recent.length > KEPT) log.recent.shift()
  versions.set(record, { log, version: log.version })
}

/**
 * The names whose state may differ between answer `from` and a later answer `to` of the same aggregator, in the
 * order they were stored (a new name comes after every name `from` lists, as in `to`); undefined when unknown
 * or when a location was dropped in between (its name may come back in another place).
 */
export function changedBetween(from: object, to: object): string[] | undefined {
  const a = versions.get(from)
  const b = versions.get(to)
  if (!a || !b || a.log !== b.log || b.version < a.version) return undefined
  const { log } = b
  const oldest = log.version - log.recent.length + 1
  if (a.version + 1 < oldest) return undefined
  const names = new Set<string>()
  for (let v = a.version + 1; v <= b.version; v++) {
    const stored = log.recent[v - oldest]
    if (!stored) return undefined
    for (const name of stored) names.add(name)
  }
  return [...names]
}
