/**
 * @module
 * node-redis (`redis` v5/v6, TCP) in the shape the adapter takes, for self-hosted Node servers and
 * clusters. A `createCluster()` client works too: it routes each script by its first key, and all of a
 * room's keys share one hash slot.
 */
import { WaitingRoomError } from '../../src/errors.ts'
import { DRIVER_NAME, type RedisScripting } from './run-script.ts'

/** The node-redis methods used; a `createClient()` or `createCluster()` client has them all. */
export interface NodeRedisScripting {
  evalSha(sha1: string, options: { keys: string[]; arguments: string[] }): Promise<unknown>
  eval(script: string, options: { keys: string[]; arguments: string[] }): Promise<unknown>
  /** Used for `replicas` only: a cluster's `sendCommand(firstKey, isReadonly, args)`, a client's `sendCommand(args)`. */
  sendCommand?(...args: never[]): Promise<unknown>
}

export interface FromNodeRedisOptions {
  /**
   * Replicas that must acknowledge a script's writes (Redis `WAIT`, sent right behind the script in the same
   * round trip, to the same node) before its answer counts. Default 0: answer at once — a failover can then
   * lose the last grants the old master acknowledged, and the room hand those slots out again. 1, on a
   * cluster with one replica per master: a slot is only granted once its replica has it, so a failover loses
   * none; while a master has no replica (after a failover, until the old master rejoins as one) every
   * decision fails and the room's `failMode` answers.
   */
  replicas?: number
  /** Longest wait for those acknowledgements, in ms. Default 200. */
  replicaTimeoutMs?: number
}

function optionError(field: string, allowed: string): WaitingRoomError {
  return new WaitingRoomError('ERR_WR_OPTIONS', `${DRIVER_NAME}: invalid fromNodeRedis option ${field}: ${allowed}`)
}

/**
 * Wraps a connected node-redis client or cluster for {@link upstashCoordinator}.
 *
 * @example
 * ```ts
 * import { createClient, createCluster } from 'redis'
 * const client = await createClient({ url: process.env.REDIS_URL }).connect()
 * app.use(waitingRoom({ coordinator: redisCoordinator(fromNodeRedis(client)) }))
 *
 * const cluster = await createCluster({ rootNodes: [{ url: 'redis://10.0.0.1:6379' }, { url: 'redis://10.0.0.2:6379' }] }).connect()
 * app.use(waitingRoom({ coordinator: redisCoordinator(fromNodeRedis(cluster, { replicas: 1 })) }))
 * ```
 */
export function fromNodeRedis(client: NodeRedisScripting, options: FromNodeRedisOptions = {}): RedisScripting {
  const replicas = options.replicas ?? 0
  const timeoutMs = options.replicaTimeoutMs ?? 200
  if (!(Number.isInteger(replicas) && replicas >= 0 && replicas <= 16)) throw optionError('replicas', 'an integer from 0 to 16')
  if (!(Number.isInteger(timeoutMs) && timeoutMs >= 1 && timeoutMs <= 10_000)) throw optionError('replicaTimeoutMs', 'an integer from 1 to 10000')
  const evalsha: RedisScripting['evalsha'] = (sha1, keys, args) => client.evalSha(sha1, { keys, arguments: args })
  const evalScript: RedisScripting['eval'] = (script, keys, args) => client.eval(script, { keys, arguments: args })
  if (replicas === 0) return { evalsha, eval: evalScript }

  if (typeof client.sendCommand !== 'function') throw optionError('replicas', 'needs a node-redis client or cluster (it sends WAIT with sendCommand)')
  const send = client.sendCommand.bind(client) as (...args: unknown[]) => Promise<unknown>
  const wait = ['WAIT', String(replicas), String(timeoutMs)]
  // A cluster routes a raw command by the key given first: the room's key, so WAIT reaches the script's node.
  const isCluster = 'masters' in client
  const acknowledged = async <T>(script: Promise<T>, key: string): Promise<T> => {
    const [reply, acks] = await Promise.all([script, isCluster ? send(key, false, wait) : send(wait)])
    if (Number(acks) < replicas) {
      throw new Error(`WAIT: ${Number(acks)} of ${replicas} replicas acknowledged the write within ${timeoutMs} ms`)
    }
    return reply
  }
  return {
    evalsha: (sha1, keys, args) => acknowledged(evalsha(sha1, keys, args), keys[0]!),
    eval: (script, keys, args) => acknowledged(evalScript(script, keys, args), keys[0]!),
  }
}
