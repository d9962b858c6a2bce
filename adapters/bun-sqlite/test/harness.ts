/**
 * @module
 * What the adapter's own suites need from a runtime: how to open a connection, and which executables
 * run the child processes.
 */
import type { SqliteDatabase } from '../driver.ts'

export type ClosableDatabase = SqliteDatabase & { close(): void }

export interface SqliteHarness {
  /** Runtime and driver, shown in test titles. */
  name: string
  /** A new connection to the file at `path` (or `:memory:`). */
  open(path: string): ClosableDatabase
  /** Executables for the child processes, one per process (`process.execPath` runs the test's own runtime). */
  processRuntimes: string[]
}
