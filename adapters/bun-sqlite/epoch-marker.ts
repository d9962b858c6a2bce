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
 * It also keeps the highest generation of each room's epoch that a process on this path saw (rewritten at most
 * every {@link GENERATION_WRITE_MS}, and when the process closes its coordinator): a process whose first sync finds
 * the file's generation below it is on an older copy put back (a backup restored), and the room is marked
 * recovering in that sync (rows.ts). A VM snapshot that restores the marker with the file is not noticed this way
 * (the tickets tell, until the copy's generation passes theirs).
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
  /**
   * The highest generation of `epochId` this marker knows for `roomId`: read from the file the first time (what
   * earlier processes on this path saw), then raised by every {@link noteGeneration} of this process.
   */
  generation(roomId: string, epochId: string): number | undefined
  /** Notes a generation the state answered; the file is rewritten at most every {@link GENERATION_WRITE_MS}. */
  noteGeneration(roomId: string, epochId: string, generation: number): void
  /** Writes the generations noted since the last write (a process closing: what it saw outlives it). */
  flush(): void
}

/**
 * How often at most the marker file is rewritten for generations (and once more at close): a copy of the database
 * taken after the last write, by a process that then stopped without closing (a crash) within this time, can be
 * put back unnoticed by a process starting on it (README, Known limits).
 */
export const GENERATION_WRITE_MS = 5000
/** The marker's key for generations: `{ room: [epochId, generation] }` (no room id starts with NUL). */
const GENERATIONS_KEY = '\u0000generations'

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
  /** room → [epoch, generation]: the file's, loaded once, raised by this process's syncs. */
  let generations: Record<string, [string, number]> | undefined
  let writtenAt = Number.NEGATIVE_INFINITY
  let unwritten = false
  const loadGenerations = (): Record<string, [string, number]> => {
    if (generations) return generations
    const stored = (read() as Record<string, unknown>)[GENERATIONS_KEY]
    generations = {}
    if (typeof stored === 'object' && stored !== null) {
      for (const [room, entry] of Object.entries(stored)) {
        if (Array.isArray(entry) && typeof entry[0] === 'string' && Number.isSafeInteger(entry[1])) generations[room] = [entry[0], entry[1]]
      }
    }
    return generations
  }
  const write = (change: (rooms: Record<string, unknown>) => void): void => {
    try {
      const rooms = read() as Record<string, unknown>
      change(rooms)
      const temporary = `${path}.${process.pid}.${Math.random().toString(36).slice(2)}`
      writeFileSync(temporary, JSON.stringify(rooms))
      renameSync(temporary, path)
    } catch (error) {
      warn(error)
    }
  }
  /** Writes the generations noted and not yet written, merged with what other processes wrote (the higher one of an epoch kept). */
  const writeGenerations = (): void => {
    if (!unwritten || !generations) return
    const known = generations
    writtenAt = Date.now()
    unwritten = false
    write((rooms) => {
      const stored = (rooms[GENERATIONS_KEY] ?? {}) as Record<string, [string, number]>
      for (const [room, [epoch, value]] of Object.entries(known)) {
        const other = stored[room]
        if (!Array.isArray(other) || other[0] !== epoch || !(other[1] >= value)) stored[room] = [epoch, value]
      }
      rooms[GENERATIONS_KEY] = stored
    })
  }
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
      write((rooms) => void (rooms[roomId] = epochId))
    },
    generation(roomId, epochId) {
      const entry = loadGenerations()[roomId]
      return entry && entry[0] === epochId ? entry[1] : undefined
    },
    noteGeneration(roomId, epochId, generation) {
      const known = loadGenerations()
      const entry = known[roomId]
      if (!entry || entry[0] !== epochId || entry[1] < generation) {
        known[roomId] = [epochId, generation]
        unwritten = true
      }
      if (Date.now() - writtenAt >= GENERATION_WRITE_MS) writeGenerations()
    },
    flush: writeGenerations,
  }
}
