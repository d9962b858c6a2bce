/// <reference types="node" />
/**
 * @module
 * The file behind a handle, seen from outside SQLite: which file the path names now (device and inode, so
 * a file deleted or replaced under the running processes is noticed), and whether this process can write
 * the database, its `-wal` and its `-shm`. SQLite maps the `-shm` file into memory; a process that cannot
 * write it must not go on to map it (#14.5: the proxies died of SIGBUS), so this is checked before the
 * first statement touches the file. `node:fs` works the same on Node and Bun.
 *
 * Why the `-wal` and `-shm` identities matter too (#14 breaker 2): processes lock against each other, and
 * find each other's commits, through the `-shm` file they all map. One deleted under a running process
 * stays mapped there, while a process started later creates a new one: the two no longer see each
 * other's locks or commits, and each admits up to the limit.
 */
import { accessSync, closeSync, constants, fstatSync, ftruncateSync, openSync, statSync, writeSync } from 'node:fs'
import { dirname, resolve } from 'node:path'

/** Which file a path names: equal identities are the same file, even if it was renamed. */
export interface FileIdentity {
  dev: number
  ino: number
}

/** `bun:sqlite` keeps the path in `filename`, better-sqlite3 in `name`. */
interface NamedHandle {
  filename?: unknown
  name?: unknown
}

/**
 * The absolute path of the file a handle opened, or undefined when it has none to watch: `:memory:`, a
 * temporary database (`""`), a `file:` URI (its query may change what it opens).
 */
export function databasePath(db: object): string | undefined {
  const { filename, name } = db as NamedHandle
  const path = typeof filename === 'string' ? filename : typeof name === 'string' ? name : undefined
  if (path === undefined || path === '' || path === ':memory:' || path.startsWith('file:')) return undefined
  return resolve(path)
}

/** The identity of the file at `path` now (one `stat`); undefined when there is none (deleted). */
export function identityOf(path: string): FileIdentity | undefined {
  try {
    const stats = statSync(path, { throwIfNoEntry: false })
    return stats === undefined ? undefined : { dev: stats.dev, ino: stats.ino }
  } catch {
    return undefined
  }
}

export const sameFile = (a: FileIdentity | undefined, b: FileIdentity | undefined): boolean =>
  a !== undefined && b !== undefined && a.dev === b.dev && a.ino === b.ino

/** The identity and size of the file at `path` now (one `stat`); undefined when there is none. */
export function statOf(path: string): (FileIdentity & { size: number }) | undefined {
  try {
    const stats = statSync(path, { throwIfNoEntry: false })
    return stats === undefined ? undefined : { dev: stats.dev, ino: stats.ino, size: stats.size }
  } catch {
    return undefined
  }
}

/**
 * The directory's identity and change times. A file of it deleted, created or renamed over (replaced) changes
 * its mtime and ctime, so an unchanged stamp stands for the database and `-wal` paths still naming the files
 * they named when it was taken — one `stat` instead of two per transaction (#16). Undefined when there is none.
 */
export interface DirectoryStamp extends FileIdentity {
  mtimeMs: number
  ctimeMs: number
}

export function directoryStamp(path: string): DirectoryStamp | undefined {
  try {
    const stats = statSync(path, { throwIfNoEntry: false })
    return stats === undefined ? undefined : { dev: stats.dev, ino: stats.ino, mtimeMs: stats.mtimeMs, ctimeMs: stats.ctimeMs }
  } catch {
    return undefined
  }
}

/**
 * How old a directory's change times must be, when the files were last found unchanged, before an equal stamp
 * later is trusted: file systems stamp changes with a coarse clock (one tick, up to 10 ms on Linux), so a file
 * replaced in the same tick as the change the stamp shows, after the check, would leave the stamp equal.
 */
export const STAMP_SETTLED_MS = 100

export const sameStamp = (a: DirectoryStamp | undefined, b: DirectoryStamp | undefined): boolean =>
  a !== undefined && b !== undefined && sameFile(a, b) && a.mtimeMs === b.mtimeMs && a.ctimeMs === b.ctimeMs

/** The database at `path` and the `-wal` and `-shm` files SQLite keeps beside it in WAL mode. */
export const filesOf = (path: string): string[] => [path, `${path}-wal`, `${path}-shm`]

/**
 * The first of `files` that no longer is the file `seen` recorded for it (deleted, or another file now),
 * or undefined. A file that did not exist when `seen` was recorded is not compared. One `stat` per file.
 */
export function changedFile(files: readonly string[], seen: readonly (FileIdentity | undefined)[]): string | undefined {
  return files.find((file, i) => seen[i] !== undefined && !sameFile(identityOf(file), seen[i]))
}

const writable = (path: string): boolean => {
  try {
    accessSync(path, constants.W_OK)
    return true
  } catch {
    return false
  }
}

const exists = (path: string): boolean => {
  try {
    accessSync(path, constants.F_OK)
    return true
  } catch {
    return false
  }
}

/**
 * What keeps this process from writing the database at `path`, as a sentence naming the file, or undefined.
 * Each of the database, `-wal` and `-shm` must be writable if it exists; the directory must be writable if
 * one of them is still to be created (SQLite creates `-wal` and `-shm` beside the database).
 */
export function unwritableReason(path: string): string | undefined {
  const files = filesOf(path)
  for (const file of files) {
    if (exists(file) && !writable(file)) return `${file} is not writable by this process`
  }
  const dir = dirname(path)
  if (files.some((file) => !exists(file)) && !writable(dir)) {
    return `the directory ${dir} is not writable by this process (SQLite creates ${path}-wal and -shm there)`
  }
  return undefined
}

/**
 * SQLite grows the `-shm` in whole regions of 32 KiB (`WALINDEX_PGSZ`, wal.c) and maps each region it uses.
 * While a process has it mapped, nothing in SQLite makes it shorter (only the first connection to a database
 * nobody has open truncates it, and this one holds it open): a `-shm` now shorter than the size seen, or not
 * a whole number of regions, was cut under the running processes, and their next touch of the mapped pages
 * past its end is a SIGBUS.
 */
export const SHM_REGION_BYTES = 32_768

/** The size of the file at `path` now (one `stat`); undefined when there is none. */
export function sizeOf(path: string): number | undefined {
  try {
    return statSync(path, { throwIfNoEntry: false })?.size
  } catch {
    return undefined
  }
}

/** Whether a `-shm` of `size` bytes was cut under a process that saw it at `seen` bytes. */
export const shmCut = (size: number | undefined, seen: number): boolean => size !== undefined && (size < seen || size % SHM_REGION_BYTES !== 0)

/** The `-shm` header: two copies of the wal-index header and the checkpoint info (wal.c, `WALINDEX_HDR_SIZE`). */
const SHM_HEADER_BYTES = 136

/**
 * Gives a cut `-shm` its length back (zeros), so the pages SQLite mapped exist again, and zeroes its header:
 * a cut may keep the header and lose the hash tables after it, and SQLite would then trust the header and
 * miss the frames the lost tables indexed — reading older pages. A zeroed header is what SQLite finds in a
 * new `-shm`: it rebuilds the whole index from the `-wal` before the next read. Only ever lengthens: the size
 * is read and set on one descriptor, and a file another process already restored is left alone. Throws when
 * the file cannot be written.
 */
export function lengthenTo(path: string, size: number): void {
  const fd = openSync(path, 'r+')
  try {
    const now = fstatSync(fd).size
    const target = Math.max(size, Math.ceil(now / SHM_REGION_BYTES) * SHM_REGION_BYTES)
    if (now >= target) return
    ftruncateSync(fd, target)
    writeSync(fd, new Uint8Array(SHM_HEADER_BYTES), 0, SHM_HEADER_BYTES, 0)
  } finally {
    closeSync(fd)
  }
}
