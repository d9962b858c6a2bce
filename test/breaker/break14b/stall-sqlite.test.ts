/** break14b — item 5 on SQLite: another process holds the write lock (BEGIN IMMEDIATE) for 4 s. See stall.ts. */
import { spawn } from 'node:child_process'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { killAllStarted, tmp } from './procs.ts'
import { stallRun } from './stall.ts'

afterAll(() => killAllStarted())
const holdLock = (file: string, seconds: number) => new Promise<void>((resolve) => {
  const py = `import sqlite3,time\nc=sqlite3.connect(${JSON.stringify(file)},isolation_level=None,timeout=10)\nc.execute('BEGIN IMMEDIATE')\ntime.sleep(${seconds})\nc.execute('COMMIT')\n`
  spawn('python3', ['-c', py], { stdio: 'inherit' }).on('exit', () => resolve())
})
describe('break14b: admitted users while another process holds the SQLite write lock for 4 s across a minute boundary', () => {
  it('BEGIN IMMEDIATE for 4 s: every admitted request is served, none waits (max < 300 ms)', async () => {
    const file = join(tmp(), 'room.db')
    const out = await stallRun({ store: file }, () => holdLock(file, 4), 4000)
    console.log('BEGIN IMMEDIATE:', JSON.stringify(out))
    expect(out.requestsDuring).toBeGreaterThan(20)
    expect({ refused: out.refusedDuring, slow: out.maxMs >= 300 }).toEqual({ refused: 0, slow: false })
  }, 60_000)
  it('1-minute sessions (renewed anyway once the bounded wait is over): all served, at most one bounded wait (max < 1400 ms: a renewal in its confirmed cookie’s last minute waits up to coordinatorTimeoutMs (1000), once, p95 < 300 ms)', async () => {
    const file = join(tmp(), 'room.db')
    const out = await stallRun({ store: file }, () => holdLock(file, 4), 4000, 1)
    console.log('BEGIN IMMEDIATE, 1-minute sessions:', JSON.stringify(out))
    expect(out.requestsDuring).toBeGreaterThan(20)
    expect({ refused: out.refusedDuring, slow: out.maxMs >= 1400, p95: out.p95Ms >= 300 }).toEqual({ refused: 0, slow: false, p95: false })
  }, 60_000)
})
