/**
 * @module
 * The room's metrics as Prometheus families. Counters are this worker's (each worker is scraped on its
 * own and Prometheus sums them); gauges come from the aggregated snapshot, so they are the whole room's.
 */
import type { RoomHandle } from '../room/decision.ts'
import { OUTCOME_OF } from '../room/metrics.ts'
import type { MinutePlan } from '../admission/plan.ts'
import type { MetricFamily } from './prometheus.ts'
import type { RoomStatusName } from './status.ts'
import type { EffectiveSettings } from '../admission/settings.ts'
import type { Snapshot } from '../admission/snapshot.ts'
import { challengeMetricFamilies } from '../challenge/metrics.ts'

/** What the gauges are read from; absent when the coordinator could not be reached (counters are still served). */
export interface RoomView {
  settings: EffectiveSettings
  snapshot: Snapshot
  plan: MinutePlan
  status: RoomStatusName
}

const STATUSES: readonly RoomStatusName[] = ['not_queueing', 'queueing', 'event_prequeueing', 'suspended']

export function roomMetricFamilies(room: RoomHandle, view: RoomView | undefined, prefix: string): MetricFamily[] {
  const roomLabel = { room: room.roomId }
  const m = room.metrics
  const one = (value: number) => [{ labels: roomLabel, value }]
  const families: MetricFamily[] = [
    {
      name: `${prefix}_decisions_total`,
      help: 'Requests decided by this worker, by outcome and reason.',
      type: 'counter',
      samples: (Object.keys(OUTCOME_OF) as (keyof typeof OUTCOME_OF)[]).map((reason) => ({
        labels: { ...roomLabel, outcome: OUTCOME_OF[reason], reason },
        value: m.decisions[reason],
      })),
    },
    {
      name: `${prefix}_coordinator_errors_total`,
      help: 'Failed or timed-out coordinator calls (reports and counters) on this worker.',
      type: 'counter',
      samples: one(room.link.errors),
    },
    {
      name: `${prefix}_coordinator_fallbacks_total`,
      help: 'New users decided by failMode because the coordinator failed: open admits, closed queues.',
      type: 'counter',
      samples: [
        { labels: { ...roomLabel, mode: 'open' }, value: m.decisions['fail-open'] },
        { labels: { ...roomLabel, mode: 'closed' }, value: m.decisions['fail-closed'] },
      ],
    },
    { name: `${prefix}_revocations_total`, help: 'Sessions ended by an origin revoke command on this worker.', type: 'counter', samples: one(m.revocations) },
    {
      name: `${prefix}_counter_round_trips_total`,
      help: 'Counter calls made for new-user decisions on this worker (one in the common case, at most two).',
      type: 'counter',
      samples: one(m.counterRoundTrips),
    },
  ]
  families.push({
    name: `${prefix}_rule_hits_total`,
    help: 'Requests a runtime bypass rule let through on this worker, by rule id.',
    type: 'counter',
    samples: [...new Set([...room.rules.rules().map((r) => r.id), ...room.rules.hits.keys()])].map((rule) => ({ labels: { ...roomLabel, rule }, value: room.rules.hits.get(rule) ?? 0 })),
  })
  if (room.options.challenge) families.push(...challengeMetricFamilies(m.challenge, roomLabel, prefix))
  if (!view) return families

  const { snapshot, plan, settings } = view
  const perLocation = (pick: (summary: Snapshot['locations'][string]) => number) =>
    Object.entries(snapshot.locations).map(([location, summary]) => ({ labels: { ...roomLabel, location }, value: pick(summary) }))
  families.push(
    { name: `${prefix}_active_users`, help: 'Users with a live session, per location (room-wide estimate).', type: 'gauge', samples: perLocation((l) => l.activeUsers) },
    { name: `${prefix}_queued_users`, help: 'Users waiting in the queue, per location (room-wide estimate).', type: 'gauge', samples: perLocation((l) => l.waitingUsers) },
    { name: `${prefix}_admissions_this_minute`, help: 'Users admitted in the current minute, per location.', type: 'gauge', samples: perLocation((l) => l.admittedThisMinute) },
    {
      name: `${prefix}_admissions_per_minute`,
      help: 'Average admissions per completed minute over the last few minutes (what wait estimates divide by).',
      type: 'gauge',
      samples: one(snapshot.admissionsPerMinute),
    },
    { name: `${prefix}_slots_remaining`, help: 'Slots left in the current minute as far as this worker knows.', type: 'gauge', samples: one(plan.remaining) },
    { name: `${prefix}_total_active_users_limit`, help: 'The totalActiveUsers setting in force.', type: 'gauge', samples: one(settings.totalActiveUsers) },
    { name: `${prefix}_new_users_per_minute_limit`, help: 'The newUsersPerMinute setting in force.', type: 'gauge', samples: one(settings.newUsersPerMinute) },
    {
      name: `${prefix}_status`,
      help: 'The room status (as GET /status): 1 for the current one, 0 for the others.',
      type: 'gauge',
      samples: STATUSES.map((status) => ({ labels: { ...roomLabel, status }, value: status === view.status ? 1 : 0 })),
    },
  )
  return families
}
