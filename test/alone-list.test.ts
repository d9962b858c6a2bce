/**
 * test/support/alone.ts lists the files that judge real elapsed time (run one at a time, project `alone`); any
 * other file runs beside others (project `parallel`). A breaker file that starts a timed process fleet or measures
 * real latency but is not listed would run beside other files and fail on a busy 2-core machine only now and
 * then: this test names it instead. The markers are the helpers and calls such files use (a file can still judge
 * time without them: the list's header says when to add a file by hand).
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { join, relative } from 'node:path'
import { describe, expect, it } from 'vitest'
import { ALONE } from './support/alone.ts'

const ROOT = join(import.meta.dirname, '..')
/** Calls that mean real time is judged: accelerated clocks shared with processes, fleets run for real seconds, latency measured, stores stalled or slowed in real ms. */
const MARKERS = /fakeClock\(|B14B_CLOCK_K|clock-preload|crashRun\(|revokeRun\(|stallRun\(|performance\.now\(\)|DEBUG.{0,4}SLEEP|CLIENT.{0,4}PAUSE|SIGSTOP|slowKillable\(|slowCoordinator\(|syncMs/

function testFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name)
    if (e.isDirectory()) return testFiles(path)
    return e.name.endsWith('.test.ts') && !/\.(deno|bun)\.test\.ts$/.test(e.name) ? [relative(ROOT, path)] : []
  })
}

describe('the alone list (test/support/alone.ts)', () => {
  it('names files that exist', () => {
    expect(Object.keys(ALONE).filter((f) => !existsSync(join(ROOT, f)))).toEqual([])
  })

  it('holds every breaker file that starts a timed fleet or measures real time', () => {
    const unlisted = testFiles(join(ROOT, 'test', 'breaker')).filter((f) => !(f in ALONE) && MARKERS.test(readFileSync(join(ROOT, f), 'utf8')))
    expect(unlisted, 'judges real time: add to test/support/alone.ts with the reason').toEqual([])
  })

  it('gives each file a reason', () => {
    expect(Object.entries(ALONE).filter(([, why]) => why.trim().length < 10)).toEqual([])
  })
})
