/**
 * @module
 * The grant step's own check that the state it grants from is the one the asking worker knew (#14.4): a worker
 * that synced before its backend came back empty, or before an older copy was put back, would otherwise grant
 * from a counter that forgot the minute's earlier grants, with limits from its snapshot of the old state, until
 * its next sync. Every adapter runs this in the atomic step that grants (script, transaction, commit, object call).
 */
import type { CounterRequest } from './coordinator.ts'
import { nextGeneration } from './state.ts'

/**
 * Whether a grant finds the stored state lost or replaced since the asking worker's last sync: the request's
 * epoch absent from the store or another, or — where the adapter keeps generations (`stored.generation` given; an
 * absent one is 0) — the store's generation below the request's (an older copy put back). Then the grant step
 * marks the loss in its own atomic step, exactly as a sync's sighting does (`R{minute}` in the asking location,
 * the lost minute moved to the request's minute, the generation as `nextGeneration` moves it) and the
 * `refusesWhileRecovering` check that follows (coordinator.ts) refuses it. Answers the generation to store, or undefined:
 * nothing to mark — no epoch or location asked, the state is the one the worker knew, or a loss is already marked
 * in this minute or later (so with `failMode: 'open'`, which is never refused, a worker still behind does not
 * mark again on every grant).
 */
export function lossAtGrant(
  request: Pick<CounterRequest, 'epoch' | 'generation' | 'location' | 'minute'>,
  stored: { epoch: string | undefined; generation?: number | undefined; lostMinute: number | undefined },
): { generation: number } | undefined {
  if (request.epoch === undefined || request.location === undefined) return undefined
  if (stored.lostMinute !== undefined && stored.lostMinute >= request.minute) return undefined
  // An adapter without generations: only the epoch is compared (a worker's generation there is never set).
  const seen = { epoch: request.epoch, generation: stored.generation === undefined ? 0 : (request.generation ?? 0) }
  const { generation, restored } = nextGeneration(stored.generation ?? 0, { seen }, stored.epoch ?? '', false)
  return restored ? { generation } : undefined
}
