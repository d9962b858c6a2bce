/**
 * @module
 * Drives one room through a generated sequence of arrivals, check-ins, browsing, departures and clock
 * steps, and checks the room's promises after every step against the ground truth it keeps itself.
 */
import fc from 'fast-check'
import { minuteOf } from '../../src/clock.ts'
import { positionEndsAt, positionOf, renewalDue } from '../../src/coordination/positions.ts'
import type { Coordinator } from '../../src/coordination/coordinator.ts'
import { roomHarness, type Visit } from './room-harness.ts'

export interface Step {
  /** Seconds the clock moves before the step. */
  advance: number
  /** New users arriving in this step. */
  arrivals: number
  /** Admitted users that stop browsing (by index among those browsing). */
  leave: number[]
  /** Order in which due queued users check in (a permutation seed). */
  shuffle: number
}

export const stepArbitrary: fc.Arbitrary<Step> = fc.record({
  advance: fc.integer({ min: 1, max: 40 }),
  arrivals: fc.integer({ min: 0, max: 6 }),
  leave: fc.array(fc.nat({ max: 20 }), { maxLength: 2 }),
  shuffle: fc.nat(),
})

export interface Limits {
  totalActiveUsers: number
  newUsersPerMinute: number
  sessionDurationMinutes: number
}

interface User {
  visit: Visit
  bucketId: number
  admittedAt?: number
  /** ms of the last request, while browsing; undefined once the user left. */
  lastRequest?: number
  leftAt?: number
  /** Where the session's count sits (src/coordination/positions.ts), once admitted. */
  position?: number
  nextCheckIn: number
}

export interface Violation {
  rule: string
  detail: string
}

/** Runs the steps; returns the first broken promise, or undefined. */
export async function runSteps(coordinator: Coordinator, limits: Limits, steps: Step[]): Promise<Violation | undefined> {
  const room = roomHarness({ ...limits, coordinator, refreshIntervalSeconds: 20, roomId: `prop-${crypto.randomUUID().slice(0, 8)}` })
  const users: User[] = []
  const admittedPerMinute = new Map<number, number>()
  const sessionEnd = (user: User) => positionEndsAt(user.position!, limits.sessionDurationMinutes)

  const record = (user: User, visit: Visit): Violation | undefined => {
    user.visit = visit
    const now = room.clock.now
    if (visit.outcome === 'admitted' && user.admittedAt === undefined) {
      user.admittedAt = now
      user.lastRequest = now
      user.position = minuteOf(now)
      const minute = minuteOf(now)
      admittedPerMinute.set(minute, (admittedPerMinute.get(minute) ?? 0) + 1)
    } else if (visit.outcome === 'queued') {
      // FIFO: a user may only be turned away if nobody of a later bucket has been let in before them. (Users
      // of several buckets admitted in the same minute may come in any order: each had its slot reserved.)
      const passed = users.find((other) => other.admittedAt !== undefined && other.bucketId > user.bucketId)
      if (passed) return { rule: 'fifo', detail: `bucket ${user.bucketId} turned away after bucket ${passed.bucketId} was let in` }
      user.nextCheckIn = now + Number(visit.response.headers.get('refresh') ?? 20) * 1000
    } else if (visit.outcome !== 'admitted') {
      return { rule: 'response', detail: `status ${visit.status}` }
    }
    return undefined
  }

  for (const step of steps) {
    room.advance(step.advance * 1000)
    const now = room.clock.now
    // Browsing users make a request; some leave.
    const browsing = users.filter((u) => u.lastRequest !== undefined && now < sessionEnd(u))
    for (const index of step.leave) {
      const user = browsing[index % Math.max(1, browsing.length)]
      if (user && user.lastRequest !== undefined) {
        user.leftAt = user.lastRequest
        user.lastRequest = undefined
      }
    }
    for (const user of browsing) {
      if (user.lastRequest === undefined) continue
      const visit = await room.visit(user.visit.cookie)
      if (visit.outcome !== 'admitted') return { rule: 'session', detail: 'a live session was queued' }
      user.visit = visit
      user.lastRequest = now
      if (renewalDue(user.position!, now)) user.position = positionOf(now)
    }
    // Queued users whose refresh is due check in, in a generated order.
    const due = users.filter((u) => u.admittedAt === undefined && now >= u.nextCheckIn)
    due.sort((a, b) => ((users.indexOf(a) * 7919 + step.shuffle) % 101) - ((users.indexOf(b) * 7919 + step.shuffle) % 101))
    for (const user of due) {
      const violation = record(user, await room.visit(user.visit.cookie))
      if (violation) return violation
    }
    for (let i = 0; i < step.arrivals; i++) {
      const user: User = { visit: undefined as never, bucketId: minuteOf(now), nextCheckIn: now }
      users.push(user)
      const violation = record(user, await room.visit())
      if (violation) return violation
    }
    // The limits.
    const active = users.filter((u) => u.admittedAt !== undefined && now < sessionEnd(u)).length
    if (active > limits.totalActiveUsers) return { rule: 'totalActiveUsers', detail: `${active} active > ${limits.totalActiveUsers}` }
    for (const [minute, count] of admittedPerMinute) {
      if (count > limits.newUsersPerMinute) return { rule: 'newUsersPerMinute', detail: `${count} admitted in minute ${minute}` }
    }
  }
  return undefined
}
