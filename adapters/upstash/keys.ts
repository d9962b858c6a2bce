/**
 * @module
 * Key names. Every key of a room carries the room in a hash tag, `{prefix}:{{roomId}}:…`, so Redis
 * Cluster puts all of a room's keys in one slot: the scripts touch several of them in one call.
 */
import { WaitingRoomError } from '../../src/errors.ts'
import { DRIVER_NAME } from './run-script.ts'

export interface RoomKeys {
  /** Hash of token → sequence number for one (scope, minute); minute first, so any scope name is safe. */
  counter(scope: string, minute: number): string
  /** Hash of count fields for one location. */
  location(name: string): string
  /** `location(name)` without the name: the sync script builds other locations' keys from it. */
  locationPrefix: string
  /** Sorted set of the room's locations, scored by their last merge (ms). */
  locations: string
  /** Marker that a report id was applied. */
  report(id: string): string
}

export function roomKeys(prefix: string, roomId: string): RoomKeys {
  if (roomId.includes('{') || roomId.includes('}')) {
    throw new WaitingRoomError('ERR_WR_OPTIONS', `${DRIVER_NAME}: room id "${roomId}" may not contain { or }: they would break the Redis Cluster hash tag`)
  }
  const room = `${prefix}:{${roomId}}`
  const locationPrefix = `${room}:l:`
  return {
    counter: (scope, minute) => `${room}:c:${minute}:${scope}`,
    location: (name) => locationPrefix + name,
    locationPrefix,
    locations: `${room}:locations`,
    report: (id) => `${room}:r:${id}`,
  }
}
