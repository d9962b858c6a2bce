/// <reference types="node" />
/**
 * @module
 * A temp folder per suite under `os.tmpdir()`, removed afterwards with every WAL and shm file in it.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

export interface TempFiles {
  /** A path for a new database file. */
  next(): string
  remove(): void
}

export function tempFiles(label: string): TempFiles {
  let dir: string | undefined
  let count = 0
  return {
    next() {
      dir ??= mkdtempSync(join(tmpdir(), `wr-${label}-`))
      return join(dir, `room-${count++}.db`)
    },
    remove() {
      if (dir) rmSync(dir, { recursive: true, force: true })
    },
  }
}
