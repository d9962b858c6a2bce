/**
 * @module
 * Before the pipeline: the requests this room steps aside for, counting nothing. Another room on the request
 * decides it (the most specific route, ../registry.ts); the room does not cover it; the room's own admin API
 * answers it (../admin-routes.ts); or a runtime bypass rule matches (src/rules/). Synchronous unless a
 * coverage rule or the rules' first load is asynchronous, so the common path adds no await.
 */
import type { Context } from 'hono'
import { answeredByAdmin, anyAdmin, warnTokenDecided } from '../admin-routes.ts'
import { deciderOf } from '../registry.ts'
import type { Room } from '../room.ts'

/**
 * `other-room`: another room decides, pass untouched; `bypass`: pass, recorded as bypassed (an admin
 * endpoint answers it, or a rule); undefined: decide. The room never answers for an admin itself.
 */
export type Aside = 'other-room' | 'bypass' | undefined

export function stepAside(room: Room, c: Context, now: number): Aside | Promise<Aside> {
  const decider = deciderOf(c, room)
  if (decider !== undefined && decider !== room) return 'other-room'
  const covered = room.covers ? room.covers(c) : true
  if (covered === true) return afterCoverage(room, c, now)
  if (covered === false) return 'bypass'
  return covered.then((yes) => (yes ? afterCoverage(room, c, now) : 'bypass'))
}

function afterCoverage(room: Room, c: Context, now: number): Aside | Promise<Aside> {
  // The admin API (of any room) is never queued, mounted before or after; nothing is read until one exists.
  if (anyAdmin() && answeredByAdmin(c)) return 'bypass'
  // Runtime bypass rules: nothing to evaluate, and no await, unless rules exist.
  const ruled = room.rules.matchOf(c, now)
  if (ruled === undefined) {
    if (anyAdmin()) warnTokenDecided(c)
    return undefined
  }
  if (typeof ruled === 'string') return 'bypass'
  return ruled.then((rule) => (rule === undefined ? undefined : 'bypass'))
}
