/**
 * @module
 * The end of the restored-state probes (test/restored-state.test.ts, test/rolled-back-caught-up.test.ts): every
 * worker syncs (its status), a snapshot's age later again, then two newcomers per worker ask for a slot.
 */
import { restorableSqlite, type Restorable } from './losable.ts'

interface ProbeWorker {
  status(): Promise<unknown>
  request(): Promise<{ reason: string | null }>
}

/** Newcomers admitted by `fleet` once every worker has synced twice, a snapshot's age (6 s on `clock`) apart. */
export async function newcomersAdmitted(fleet: ProbeWorker[], clock: { now: number }): Promise<number> {
  clock.now += 6000
  for (const w of fleet) await w.status()
  clock.now += 6000
  let admitted = 0
  for (let i = 0; i < 2 * fleet.length; i++) if ((await fleet[i % fleet.length]!.request()).reason === 'slot') admitted++
  return admitted
}

/** The backends whose state can be put back: SQLite (better-sqlite3) and Redis (`make` of a restorableRedis). */
export const restorableBackends = (redis: { make(): Restorable }): [string, () => Restorable][] => [
  ['SQLite (better-sqlite3)', restorableSqlite],
  ['Redis', () => redis.make()],
]
