// Run by `bun test` (see test.sh): the same suites as sqlite.test.ts, on bun:sqlite.
import { Database } from 'bun:sqlite'
import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { coordinatorConformance } from '../../test/conformance/coordinator-suite.ts'
import { referencesConformance } from '../../test/conformance/references-suite.ts'
import { adapterSuite } from './test/adapter-suite.ts'
import { busySuite } from './test/busy-suite.ts'
import { fileSuite } from './test/file-suite.ts'
import type { SqliteHarness } from './test/harness.ts'
import { processSuite } from './test/process-suite.ts'
import { conformanceHarness, referencesHarness } from './test/conformance-harness.ts'

const t = { describe, it, expect, beforeAll, afterAll }
const bun = process.execPath
const harness: SqliteHarness = {
  name: 'Bun, bun:sqlite',
  open: (path) => new Database(path),
  processRuntimes: [bun, bun, bun, bun],
}

coordinatorConformance(t, conformanceHarness(harness))
referencesConformance(t, referencesHarness(harness))

adapterSuite(t, harness)
processSuite(t, harness)
busySuite(t, harness)
fileSuite(t, harness)
// One file, both runtimes at once: the SQL and the file format are the same, whichever library runs them.
processSuite(t, { ...harness, name: 'Node and Bun processes on one file', processRuntimes: ['node', bun, 'node', bun] })
