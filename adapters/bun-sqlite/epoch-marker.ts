/// <reference types="node" />
/**
 * @module
 * A marker that outlives the database file (#14.4): `{path}-wr-epochs`, beside it, holds the epoch id each room
 * had at this path. When a room's state is created in the file (no epoch row) while the marker names another
 * epoch for it, the file was deleted or replaced under a room that had sessions: the new state is created with
 * the room marked as recovering (`R{minute}`) in the same transaction, so even a process that starts on a fresh
 * file and serves new users before any old session or process touches it does not admit as if the room were
 * empty. To reset a room on purpose, delete the marker with the database (and its `-wal` and `-shm`).
 *
 * Written with a rename (never half a file); a marker that cannot be read or written is logged once and
 * ignored — the room then relies on sealed epochs and the old processes, as before.
 */
import { readFileSync, renameSync, writeFileSync } from 'node:fs'

export interface EpochMarker {
  /** The epoch id the marker holds for `roomId`, if any. */
  previous(roomId: string): string | undefined
  /** Records `epochId` as `roomId`'s. */
  record(roomId: string, epochId: string): void
  /**
   * For a room whose state exists: records its epoch if the marker has none for it (a file from before markers,
   * or a marker deleted) — never over another epoch, which a process still on a replaced file would write. Read
   * once per room and process, not on every sync.
   */
  keep(roomId: string, epochId: string): void
}

export const markerPathOf = (databasePath: string): string => `${databasePath}-wr-epochs`

export function epochMarker(adapter: string, databasePath: string): EpochMarker {
  const path = markerPathOf(databasePath)
  let logged = false
  const warn = (error: unknown) => {
    if (logged) return
    logged = true
    console.error(`[hono-waiting-room] ${adapter}: epoch marker ${path}: ${(error as Error)?.message ?? error}`)
  }
  const read = (): Record<string, string> => {
    try {
      const parsed: unknown = JSON.parse(readFileSync(path, 'utf8'))
      return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) ? (parsed as Record<string, string>) : {}
    } catch (error) {
      if ((error as NodeJS.ErrnoException)?.code !== 'ENOENT') warn(error)
      return {}
    }
  }
  const kept = new Set<string>()
  const previous = (roomId: string): string | undefined => {
    const id = read()[roomId]
    return typeof id === 'string' ? id : undefined
  }
  return {
    previous,
    keep(roomId, epochId) {
      if (kept.has(roomId)) return
      kept.add(roomId)
      if (previous(roomId) === undefined) this.record(roomId, epochId)
    },
    record(roomId, epochId) {
      try {
        const rooms = read()
        rooms[roomId] = epochId
        const temporary = `${path}.${process.pid}.${Math.random().toString(36).slice(2)}`
        writeFileSync(temporary, JSON.stringify(rooms))
        renameSync(temporary, path)
      } catch (error) {
        warn(error)
      }
    },
  }
}
