/**
 * @module
 * Arrival curves: turns a scenario's arrival phases into one first-request time per user.
 */
import type { ArrivalPhase } from './scenario.ts'

export interface Arrival {
  /** ms from the start of the run. */
  atMs: number
  location: string
}

/** Every user's first request, in time order (ties keep phase order, so the result is reproducible). */
export function arrivalsOf(phases: readonly ArrivalPhase[], random: () => number): Arrival[] {
  const arrivals: Arrival[] = []
  for (const phase of phases) {
    const fromMs = phase.fromSecond * 1000
    const spanMs = (phase.toSecond - phase.fromSecond) * 1000
    for (let i = 0; i < phase.users; i++) {
      const offset = phase.spacing === 'even' ? (i * spanMs) / phase.users : random() * spanMs
      arrivals.push({ atMs: Math.floor(fromMs + offset), location: phase.location })
    }
  }
  // Array.prototype.sort is stable: equal times stay in the order they were generated.
  return arrivals.sort((a, b) => a.atMs - b.atMs)
}

/**
 * Phases of one minute each whose per-minute counts follow `usersInMinute(minute)`: the building block
 * of ramps and of traffic that shifts between locations minute to minute.
 */
export function perMinute(
  location: string,
  fromMinute: number,
  toMinute: number,
  usersInMinute: (minute: number) => number,
): ArrivalPhase[] {
  const phases: ArrivalPhase[] = []
  for (let minute = fromMinute; minute < toMinute; minute++) {
    const users = Math.round(usersInMinute(minute))
    if (users > 0) phases.push({ location, fromSecond: minute * 60, toSecond: (minute + 1) * 60, users, spacing: 'random' })
  }
  return phases
}

/**
 * Minutes one admission keeps a user counted as active, on average: the visit, then the session tail. A
 * session ends with minute m + S of the last request, so the tail is S minutes plus the rest of minute m.
 */
export const minutesCounted = (visitSeconds: number, sessionDurationMinutes: number): number =>
  visitSeconds / 60 + sessionDurationMinutes + 0.5
