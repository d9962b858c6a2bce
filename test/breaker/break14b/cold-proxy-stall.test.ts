/**
 * break14b — item 5 for a COLD proxy: "Admitted users never depend on the coordinator." Proxy A admits 4 users;
 * proxy C was started alongside but has served no one. Then the store stalls for 4 s (Redis: DEBUG SLEEP on a
 * redis-server of our own; SQLite: another process holds the write lock) and the admitted users — tickets sealed
 * by A, same secret — send their requests to C for the first time. Each must be served, and well before the stall ends (< 1 s; the machine these ran on had a load average of 12, so a cold proxy's first answers took 0.2–0.4 s even without a stall; with the SQLite lock held they took ~0.2 s more, about maxLockWaitMs: the cold proxy waits for its first sync).
 */
import { spawn } from 'node:child_process'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { killAllStarted, redisCli, sleep, startOrigin, startProxy, startRedis, tmp } from './procs.ts'

afterAll(() => killAllStarted())

async function coldRun(backend: string[], stall: () => Promise<unknown>) {
  const origin = await startOrigin()
  const args = ['--origin', origin.url, '--room-id', `b14b-cold-${Date.now()}`, '--total-active-users', '50', '--new-users-per-minute', '50', ...backend]
  const [a, c] = await Promise.all([startProxy(args), startProxy(args)])
  const cookies: string[] = []
  for (let i = 0; i < 4; i++) {
    const res = await fetch(`${a!.url}/p`); await res.text()
    if (res.headers.get('x-origin') !== 'yes') throw new Error('setup')
    cookies.push(res.headers.getSetCookie().map((x) => x.split(';')[0]!).find((x) => x.startsWith('__wroom='))!)
  }
  await sleep(1500)
  const stalled = stall()
  await sleep(300)
  const results = await Promise.all(cookies.map(async (cookie) => {
    const t = performance.now()
    try {
      const res = await fetch(`${c!.url}/p`, { headers: { cookie }, signal: AbortSignal.timeout(10_000) }); await res.text()
      return { ms: Math.round(performance.now() - t), admitted: res.headers.get('x-origin') === 'yes' }
    } catch { return { ms: Math.round(performance.now() - t), admitted: false } }
  }))
  await stalled
  a!.child.kill('SIGKILL'); c!.child.kill('SIGKILL'); origin.server.close()
  return results
}

describe('break14b: admitted users reaching a cold proxy while the store stalls', () => {
  it('control: SQLite, no lock held (the same requests, for comparison)', async () => {
    const out = await coldRun(['--store', join(tmp(), 'room.db')], async () => {})
    console.log('cold sqlite control:', JSON.stringify(out))
    expect(out.filter((r) => !r.admitted || r.ms >= 1000)).toEqual([])
  }, 60_000)
  it('Redis DEBUG SLEEP 4', async () => {
    const redis = await startRedis(7399)
    try {
      const out = await coldRun(['--redis', redis.url], () => redisCli(7399, 'DEBUG', 'SLEEP', '4'))
      console.log('cold redis:', JSON.stringify(out))
      expect(out.filter((r) => !r.admitted || r.ms >= 1000)).toEqual([])
    } finally { await redis.stop() }
  }, 60_000)
  it('SQLite write lock held 4 s by another process', async () => {
    const file = join(tmp(), 'room.db')
    const hold = () => new Promise<void>((resolve) => {
      const py = `import sqlite3,time\nc=sqlite3.connect(${JSON.stringify(file)},isolation_level=None,timeout=10)\nc.execute('BEGIN IMMEDIATE')\ntime.sleep(4)\nc.execute('COMMIT')\n`
      spawn('python3', ['-c', py], { stdio: 'inherit' }).on('exit', () => resolve())
    })
    const out = await coldRun(['--store', file], hold)
    console.log('cold sqlite:', JSON.stringify(out))
    expect(out.filter((r) => !r.admitted || r.ms >= 1000)).toEqual([])
  }, 60_000)
})
