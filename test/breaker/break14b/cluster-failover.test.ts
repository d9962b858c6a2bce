/**
 * break14b — issue #14 item 10: three CLI proxies on a real Redis Cluster of our own (3 masters + 3 replicas on
 * 7400–7405, cluster-node-timeout 1000) with `?replicas=1`, a room of 30 active (1000 new per minute, so only the
 * active limit binds). A burst of cookieless users (and check-ins of the admitted and the queued) runs for ~11 s;
 * 1 s in, the master serving the room's slot is disrupted:
 *   - SIGKILL, never restarted (the promoted replica has no replica of its own);
 *   - DEBUG SLEEP 4 (a master frozen past the node timeout: its replica is promoted while it still holds the
 *     scripts queued to it, then it wakes up still believing it is master — a split brain).
 * Ground truth: distinct users the origin served (sessions are 5 minutes, so no place frees during the run):
 * never more than 30 (arrivals at ~16/s, so admissions are still being granted when the master is disrupted). Admitted users should keep being served.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startRedisCluster, type RedisCluster } from '../../support/redis-cluster.ts'
import { killAllStarted, redisCli, rng, sleep, startOrigin, startProxy, type Proxy } from './procs.ts'

const LIMIT = 30
let cluster: RedisCluster
beforeAll(async () => { cluster = await startRedisCluster({ firstPort: 7400, count: 6, replicas: 1, nodeTimeoutMs: 1000 }) }, 60_000)
afterAll(async () => { killAllStarted(); await cluster?.close() })

async function run(disrupt: (master: number) => Promise<unknown> | unknown, seed: number) {
  const random = rng(seed)
  const origin = await startOrigin()
  const roomId = `b14b-cl-${seed}-${Date.now()}`
  const url = `redis-cluster://${cluster.ports.map((p) => `127.0.0.1:${p}`).join(',')}?replicas=1`
  const proxies: Proxy[] = await Promise.all([0, 1, 2].map(() => startProxy(['--origin', origin.url, '--room-id', roomId, '--redis', url, '--total-active-users', String(LIMIT), '--new-users-per-minute', '1000', '--session-duration', '5', '--refresh-interval', '5'])))
  const master = await cluster.masterOf(`{${roomId}}`)
  const end = Date.now() + 11_000
  const admittedUsers = new Set<string>()
  let adminErrors = 0
  const user = async (id: string) => {
    let cookie = ''
    while (Date.now() < end) {
      const p = proxies[Math.floor(random() * proxies.length)]!
      try {
        const res = await fetch(`${p.url}/x`, { headers: { 'x-user': id, ...(cookie ? { cookie } : {}) }, signal: AbortSignal.timeout(5000) })
        await res.text()
        const set = res.headers.getSetCookie().map((c) => c.split(';')[0]!).find((c) => c.startsWith('__wroom='))
        if (set && set !== '__wroom=') cookie = set
        if (res.headers.get('x-origin') === 'yes') admittedUsers.add(id)
        else if (admittedUsers.has(id)) adminErrors++
      } catch { if (admittedUsers.has(id)) adminErrors++ }
      await sleep(admittedUsers.has(id) ? 300 : 1000 + random() * 500)
    }
  }
  const users: Promise<void>[] = []
  const arrivals = (async () => { let n = 0; while (Date.now() < end - 3000) { users.push(user(`u${n++}`)); await sleep(45 + random() * 30) } })()
  await sleep(1000)
  await disrupt(master)
  await arrivals
  await Promise.all(users)
  for (const p of proxies) p.child.kill('SIGKILL')
  origin.server.close()
  return { served: origin.served.size, master, adminErrors }
}

describe('break14b: Redis Cluster failover under the CLI (room of 30, three proxies)', () => {
  it('DEBUG SLEEP 4 on the room\'s master mid-burst (split brain): never more than 30 users served', async () => {
    const out = await run((m) => { void redisCli(m, 'DEBUG', 'SLEEP', '4') }, 1441)
    console.log('debug sleep:', JSON.stringify(out))
    await cluster.waitUntilHealthy(20_000).catch(() => {})
    expect(out.served).toBeLessThanOrEqual(LIMIT)
  }, 60_000)

  it('SIGKILL of the room\'s master mid-burst, not restarted: never more than 30 users served', async () => {
    const out = await run((m) => cluster.kill(m), 1442)
    console.log('sigkill:', JSON.stringify(out))
    expect(out.served).toBeLessThanOrEqual(LIMIT)
  }, 60_000)
})
