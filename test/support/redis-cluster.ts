/// <reference types="node" />
/**
 * @module
 * A real Redis Cluster on loopback for tests: `count` redis-server processes in cluster mode in a temp dir
 * (no persistence), joined by `redis-cli --cluster create … --cluster-replicas 1`, so three masters with one
 * replica each by default. A short `cluster-node-timeout` makes a killed master's replica take over in a
 * second or two. The test owns the processes: it can SIGKILL one, restart it, and `close()` ends them all.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process'
import { mkdir, mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'

const run = promisify(execFile)

export interface RedisClusterOptions {
  /** First port; nodes take `firstPort … firstPort + count − 1`. Default 17001 (unlikely to clash with 6379). */
  firstPort?: number
  /** Nodes: masters plus replicas. Default 6. */
  count?: number
  /** Replicas per master. Default 1. */
  replicas?: number
  /** `cluster-node-timeout` in ms: how long a silent master has before its replica takes over. Default 1000. */
  nodeTimeoutMs?: number
}

export interface ClusterNodeInfo {
  port: number
  role: 'master' | 'replica'
  /** Slot ranges a master serves, e.g. `[[0, 5460]]`. */
  slots: [number, number][]
  failed: boolean
}

export interface RedisCluster {
  ports: number[]
  /** `{ url }` per node, for node-redis `createCluster({ rootNodes })`. */
  rootNodes: { url: string }[]
  /** The cluster as one node sees it (CLUSTER NODES). */
  nodes(fromPort?: number): Promise<ClusterNodeInfo[]>
  /** The port of the master serving `key`'s slot. */
  masterOf(key: string): Promise<number>
  /** SIGKILLs one node: no shutdown, no last write to its replicas. */
  kill(port: number): void
  /** Starts a killed node again with its node id (it rejoins, as a replica of whoever took its slots). */
  restart(port: number): Promise<void>
  /** Resolves once every live node reports `cluster_state:ok` (every slot served: full coverage is required). */
  waitUntilHealthy(timeoutMs?: number): Promise<void>
  close(): Promise<void>
}

const cli = (port: number, ...args: string[]) => run('redis-cli', ['-h', '127.0.0.1', '-p', String(port), ...args], { timeout: 10_000 })
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** Parses CLUSTER NODES: `id addr flags master ping pong epoch state slots…`. */
function parseNodes(text: string): ClusterNodeInfo[] {
  return text
    .trim()
    .split('\n')
    .map((line) => {
      const [, address, flags, , , , , , ...slots] = line.split(' ')
      return {
        port: Number(address!.split('@')[0]!.split(':')[1]),
        role: flags!.includes('master') ? 'master' : 'replica',
        failed: flags!.includes('fail'), // `fail`, or `fail?` while the others are still agreeing
        slots: slots.filter((range) => !range.startsWith('[')).map((range) => range.split('-').map(Number) as [number, number]).map(([from, to]) => [from!, to ?? from!]),
      } satisfies ClusterNodeInfo
    })
}

/**
 * Shuts down a node an earlier run left on `port` (its test process died before `close()`), and only such
 * a node: one whose data directory is one of ours. Anything else answering there is an error.
 */
async function stopLeftover(port: number): Promise<void> {
  const dir = await cli(port, 'config', 'get', 'dir').then(({ stdout }) => stdout, () => '')
  if (dir === '') return // nothing listens there
  if (!dir.includes('wr-redis-cluster-')) throw new Error(`port ${port} is taken by another Redis (${dir.trim().split('\n').pop()}): pick other ports (firstPort)`)
  await cli(port, 'shutdown', 'nosave').catch(() => {}) // the connection closes as it shuts down
  for (let i = 0; i < 50 && (await cli(port, 'ping').then(() => true, () => false)); i++) await pause(50)
}

async function waitForReplicaLinks(ports: number[], replicas: number, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const infos = await Promise.all(ports.map((port) => cli(port, 'info', 'replication').then(({ stdout }) => stdout, () => '')))
    if (infos.filter((info) => info.includes('master_link_status:up')).length >= replicas) return
    if (Date.now() > deadline) throw new Error(`the cluster's replicas did not finish their first sync in ${timeoutMs} ms`)
    await pause(100)
  }
}

export async function startRedisCluster(options: RedisClusterOptions = {}): Promise<RedisCluster> {
  const firstPort = options.firstPort ?? 17001
  const ports = Array.from({ length: options.count ?? 6 }, (_, i) => firstPort + i)
  const dir = await mkdtemp(join(tmpdir(), 'wr-redis-cluster-'))
  const processes = new Map<number, ChildProcess>()
  const killed = new Set<number>()
  const liveNodes = () => ports.filter((port) => processes.has(port) && !killed.has(port))

  const startNode = async (port: number): Promise<void> => {
    const nodeDir = join(dir, String(port))
    await mkdir(nodeDir, { recursive: true })
    const child = spawn(
      'redis-server',
      ['--port', String(port), '--bind', '127.0.0.1', '--cluster-enabled', 'yes', '--cluster-config-file', 'nodes.conf',
        '--cluster-node-timeout', String(options.nodeTimeoutMs ?? 1000), '--save', '', '--appendonly', 'no', '--dir', nodeDir, '--loglevel', 'warning',
        // A rejoining node's first sync starts at once (Redis waits 5 s for more replicas by default).
        '--repl-diskless-sync-delay', '0'],
      { stdio: 'ignore' },
    )
    processes.set(port, child)
    killed.delete(port)
    for (let i = 0; i < 100; i++) {
      if (await cli(port, 'ping').then(({ stdout }) => stdout.includes('PONG'), () => false)) return
      await pause(50)
    }
    throw new Error(`redis-server on port ${port} did not start (is redis-server installed? apt-get install redis-server)`)
  }

  const nodes = async (fromPort?: number) => {
    const live = fromPort ?? liveNodes()[0]!
    return parseNodes((await cli(live, 'cluster', 'nodes')).stdout)
  }

  const cluster: RedisCluster = {
    ports,
    rootNodes: ports.map((port) => ({ url: `redis://127.0.0.1:${port}` })),
    nodes,
    async masterOf(key) {
      const slot = Number((await cli(liveNodes()[0]!, 'cluster', 'keyslot', key)).stdout.trim())
      const master = (await nodes()).find((node) => node.role === 'master' && !node.failed && node.slots.some(([from, to]) => slot >= from && slot <= to))
      if (!master) throw new Error(`no live master serves slot ${slot}`)
      return master.port
    },
    kill(port) {
      killed.add(port)
      processes.get(port)?.kill('SIGKILL')
    },
    async restart(port) {
      await startNode(port)
    },
    async waitUntilHealthy(timeoutMs = 20_000) {
      const deadline = Date.now() + timeoutMs
      for (;;) {
        const states = await Promise.all(liveNodes().map((port) => cli(port, 'cluster', 'info').then(({ stdout }) => stdout, () => '')))
        if (states.every((info) => info.includes('cluster_state:ok'))) return
        if (Date.now() > deadline) throw new Error(`the Redis cluster did not become healthy in ${timeoutMs} ms`)
        await pause(100)
      }
    },
    async close() {
      for (const child of processes.values()) child.kill('SIGKILL')
      await Promise.all([...processes.values()].map((child) => (child.exitCode === null && child.signalCode === null ? new Promise((resolve) => child.once('exit', resolve)) : undefined)))
      await rm(dir, { recursive: true, force: true })
    },
  }

  try {
    await Promise.all(ports.map(stopLeftover))
    await Promise.all(ports.map(startNode))
    const addresses = ports.map((port) => `127.0.0.1:${port}`)
    await run('redis-cli', ['--cluster', 'create', ...addresses, '--cluster-replicas', String(options.replicas ?? 1), '--cluster-yes'], { timeout: 30_000 })
    await cluster.waitUntilHealthy()
    // A replica that has not finished its first sync cannot take over: wait for every link to be up.
    const replicas = options.replicas ?? 1
    await waitForReplicaLinks(ports, Math.floor(ports.length / (replicas + 1)) * replicas)
    return cluster
  } catch (error) {
    await cluster.close()
    throw error
  }
}
