/// <reference types="node" />
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { runSimulate } from '../bin/simulate.ts'

const tiny = {
  name: 'tiny',
  seed: 'cli',
  minutes: 4,
  locations: [
    { name: 'a', workers: 2 },
    { name: 'b', workers: 1 },
  ],
  lagMs: 1000,
  room: { totalActiveUsers: 10, newUsersPerMinute: 10, sessionDurationMinutes: 1 },
  visit: { seconds: 60, requestEverySeconds: 30 },
  arrivals: [
    { location: 'a', fromSecond: 0, toSecond: 120, users: 20 },
    { location: 'b', fromSecond: 30, toSecond: 90, users: 8 },
  ],
}

function capture() {
  const out: string[] = []
  const err: string[] = []
  return { io: { out: (t: string) => out.push(t), err: (t: string) => err.push(t) }, out, err }
}

describe('hono-waiting-room simulate', () => {
  let dir: string

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'wr-simulate-'))
  })
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true })
  })

  it('runs a --config scenario, prints the table and summary, writes charts and JSON', async () => {
    const config = join(dir, 'tiny.json')
    await writeFile(config, JSON.stringify(tiny))
    const { io, out, err } = capture()
    const status = await runSimulate(['--config', config, '--out', join(dir, 'out')], io)
    expect(err).toEqual([])
    expect(status).toBe(0)
    const text = out.join('\n')
    expect(text).toMatch(/min\s+arrivals\s+admitted\s+queued\s+active\s+limit\s+overshoot\s+premature\s+queue/)
    expect(text).toContain('queue onset')
    for (const chart of ['active', 'queue', 'wait']) {
      const svg = await readFile(join(dir, 'out', `tiny-${chart}.svg`), 'utf8')
      expect(svg.startsWith('<svg')).toBe(true)
    }
    const json = JSON.parse(await readFile(join(dir, 'out', 'tiny.json'), 'utf8'))
    expect(json.rows).toHaveLength(4)
    expect(json.users.arrivalMs).toHaveLength(28)
    expect(json.summary.totalActiveUsers).toBe(10)
  }, 120_000)

  it('answers --help, and a bad scenario name or config with exit status 2', async () => {
    const help = capture()
    expect(await runSimulate(['--help'], help.io)).toBe(0)
    expect(help.out.join('')).toContain('--scenario')
    const unknown = capture()
    expect(await runSimulate(['--scenario', 'nope'], unknown.io)).toBe(2)
    expect(unknown.err.join('')).toContain("unknown scenario 'nope'")
    const bad = join(dir, 'bad.json')
    await writeFile(bad, JSON.stringify({ ...tiny, minutes: 0 }))
    const invalid = capture()
    expect(await runSimulate(['--config', bad], invalid.io)).toBe(2)
    expect(invalid.err.join('')).toContain('minutes')
  })

  it('scales a built-in scenario with --users, reports the issue-15 measures, and refuses a bad count', async () => {
    const { io, out, err } = capture()
    expect(await runSimulate(['--scenario', 'ramp', '--users', '120', '--quiet', '--out', join(dir, 'scaled')], io)).toBe(0)
    expect(err).toEqual([])
    const json = JSON.parse(await readFile(join(dir, 'scaled', 'ramp.json'), 'utf8'))
    expect(json.users.arrivalMs.length).toBe(120)
    expect(json.summary.totalActiveUsers).toBeLessThan(200)
    expect(json.summary.overtakes).toHaveProperty('oneMinutePercent')
    expect(json.summary.utilisation).toHaveProperty('samples')
    expect(out.join('\n')).toMatch(/fifo order +admissions overtaking a user ≥ 1 min older/)
    const wait = await readFile(join(dir, 'scaled', 'ramp-wait.svg'), 'utf8')
    expect(wait).toContain('still waiting at the end')
    for (const bad of ['0', '-5', '1.5', 'many', '1e3', '-0']) {
      const refused = capture()
      expect(await runSimulate(['--scenario', 'ramp', '--users', bad], refused.io), bad).toBe(2)
      // In --users' words, also for a negative count (parseArgs alone says "argument is ambiguous").
      expect(refused.err.join(''), bad).toMatch(new RegExp(`^hono-waiting-room simulate: --users must be a whole number of at least 1 \\(got '${bad.replace('.', '\\.')}'\\)\n`))
    }
  }, 120_000)
})
