/**
 * @module
 * Which locations changed between two answers of one global aggregator, for a reader that keeps something per
 * location (the snapshot builder). With 300 locations and one of them changed per exchange, reading every
 * location of every answer again was, after the decisions themselves, the simulator's largest cost (issue 15);
 * a real worker facing many locations saves the same. A side table, not part of the state: an answer without an
 * entry (another coordinator, a restarted stage, a change too far back) is read in full, as before.
 */

/**
 * Answers kept per aggregator: a reader further behind than this reads the answer in full. Each location's
 * workers read one answer for an exchange interval (planet: 300 locations × 5 s, ~300 answers apart).
 */
const KEPT = 512

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

/** How far apart two answers of one aggregator are (answers made between them, plus one); undefined when unknown. */
export function answersApart(a: object, b: object): number | undefined {
  const x = versions.get(a)
  const y = versions.get(b)
  return x && y && x.log === y.log ? Math.abs(x.version - y.version) : undefined
}

/**
 * The names whose state may differ between answer `from` and another answer `to` of the same aggregator, in the
 * order they were stored (a new name comes after every name the older lists, as in the newer); undefined when
 * unknown or when a location was dropped in between (its name may come back in another place). `to` may be the
 * older: the same names differ, and a name stored after it is one `to` lacks. Workers hold answers of different
 * ages, and a view derived only forward read every location again when the latest one was newer than a worker's
 * answer (at 300 locations most of planet's snapshot builds, issue 15).
 */
export function changedBetween(from: object, to: object): string[] | undefined {
  const a = versions.get(from)
  const b = versions.get(to)
  if (!a || !b || a.log !== b.log) return undefined
  const { log } = b
  const [older, newer] = a.version <= b.version ? [a.version, b.version] : [b.version, a.version]
  const oldest = log.version - log.recent.length + 1
  if (older + 1 < oldest) return undefined
  const names = new Set<string>()
  for (let v = older + 1; v <= newer; v++) {
    const stored = log.recent[v - oldest]
    if (!stored) return undefined
    for (const name of stored) names.add(name)
  }
  return [...names]
}
