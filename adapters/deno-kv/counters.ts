/**
 * @module
 * Conditional minute counters on Deno KV. A counter is a plain number under a per-minute key. Taking a slot
 * is a versionstamp check loop: read the counter strongly, decide `count < limit`, and commit the new count
 * only if the counter has not changed since — so the bound holds however many isolates race. `sum` cannot
 * do this: it has no condition and does not return the value. The token record is written in the same
 * commit, so a retried token finds its first answer and counts nothing. It is keyed by room and minute, not by
 * counter, and the commit checks it is still absent: the same token asked at another scope of the minute at once
 * (one cookie sent at two locations) sends one of the two rounds around the loop, to find the other's answer (#14).
 *
 * A request with `previousReported` compares against `effectiveLimit` (src/coordination/coordinator.ts): its limit
 * lowered by what the same scope's counter of minute − 1 gave beyond the report. That counter is read in the
 * same strong getMany, and the commit checks its versionstamp too (one more check, no extra read): a slot
 * taken late in minute − 1 between the read and the commit sends the round around the loop, so the limit
 * applied is the one at commit time, as in the other adapters' single transaction.
 *
 * The room's lost minute (keys.ts `lost`, `max`ed in by the commit of a report that marks a loss) is read in
 * the same getMany and checked by the commit: a fresh grant is refused while the room recovers
 * (`refusesWhileRecovering`), and a mark landing before the commit sends the round around the loop.
 *
 * A request carrying its worker's epoch (and generation) has them compared with the room's, read in the same
 * getMany: a state lost or put back since that worker's last sync is marked first (generation.ts `markedLoss`), and
 * the round reads again, so the recovery check refuses; the commit checks the epoch's versionstamp too.
 *
 * A fresh grant (not a repeat) of a request with a `location` adds `admissionDeltas` to that location's
 * state keys in the same commit, with `sum` (no read, no check of its own): the counter's check guards the
 * whole commit, so the slot and its count land together or not at all — never one without the other.
 *
 * A re-entry's fresh grant (`request.reentry`) sets its ticket's register (moves.ts `reenteredRegister`, the key
 * moves.ts of this adapter writes) in the same commit, checked on the versionstamp read with the counter: a move
 * of that ticket landing in between sends the round around the loop. A round without re-entries reads no register.
 *
 * Calls on one counter that overlap in this isolate are combined into one commit (up to `maxBatch`, and
 * fewer when their admissions would not fit Deno KV's mutation limit): a hot key costs one write per round
 * instead of one per caller, and callers in one isolate never conflict with each other — only other
 * isolates can make a commit fail and send a round around the loop again.
 */
import { minuteStart } from '../../src/clock.ts'
import { admissionDeltas, COUNTER_TTL_MINUTES, effectiveLimit, refusesWhileRecovering, repeatOf, type CounterRequest, type CounterResult } from '../../src/coordination/coordinator.ts'
import { reenteredRegister, reentryExpiresAfter } from '../../src/coordination/moves.ts'
import { WaitingRoomError } from '../../src/errors.ts'
import { roomKeys, type RoomKeys } from './keys.ts'
import { markedLoss } from './generation.ts'
import { backoff, DRIVER_NAME, MAX_CHECKS, MAX_GET_MANY, MAX_MUTATIONS, retryBusy, type KvAtomic, type KvEntryMaybe, type KvKey, type KvLike } from './kv.ts'

export interface CounterSettings {
  prefix: KvKey
  maxBatch: number
  maxAttempts: number
}

interface Waiting {
  request: CounterRequest
  resolve(result: CounterResult): void
  reject(error: unknown): void
}

/** A token's first answer in the room's minute: the seq it took and the scope whose counter gave it (#14). */
interface TokenAnswer {
  seq: number
  scope: string
}

/** Counters and tokens outlive their minute by the core's TTL; `expireIn` is "at earliest", which is safe here. */
const EXPIRE_IN_MS = (COUNTER_TTL_MINUTES + 1) * 60_000

/**
 * Most mutations one request can add to a round's commit: its token, and — the first time its location
 * appears in the round — that location's admission fields (`a`, `n`, `y`) and `@updated`.
 */
const WORST_MUTATIONS_PER_REQUEST = 5
/** A round's checks besides its requests' (the counter, the lost minute, minute − 1's counter, the epoch). */
const ROUND_CHECKS = 4

/**
 * The next round of a counter's queue: up to `maxBatch` requests whose worst-case commit (the counter, a
 * token each, each new location's admission fields) fits Deno KV's mutation limit.
 */
export function nextRound<T extends { request: CounterRequest }>(queue: T[], maxBatch: number): T[] {
  const locations = new Set<string | undefined>()
  let mutations = 1
  let checks = ROUND_CHECKS
  let size = 0
  for (const { request } of queue) {
    const cost = (locations.has(request.location) ? 1 : WORST_MUTATIONS_PER_REQUEST) + (request.reentry ? 1 : 0) // a re-entry's register
    const checked = 1 + (request.reentry ? 1 : 0) // its token's absence, a re-entry's register
    if (size >= maxBatch || mutations + cost > MAX_MUTATIONS || checks + checked > MAX_CHECKS) break
    locations.add(request.location)
    mutations += cost
    checks += checked
    size++
  }
  return queue.splice(0, Math.max(1, size))
}

export function kvCounters(kv: KvLike, settings: CounterSettings): (request: CounterRequest) => Promise<CounterResult> {
  const queues = new Map<string, Waiting[]>()

  /** Commits rounds for one counter until nobody is waiting on it. */
  async function drain(id: string, queue: Waiting[]): Promise<void> {
    while (queue.length > 0) {
      const round = nextRound(queue, settings.maxBatch)
      try {
        const results = await takeRound(kv, settings, round.map((waiting) => waiting.request))
        round.forEach((waiting, i) => waiting.resolve(results[i]!))
      } catch (error) {
        for (const waiting of round) waiting.reject(error)
      }
    }
    queues.delete(id)
  }

  return function increment(request: CounterRequest): Promise<CounterResult> {
    return new Promise((resolve, reject) => {
      const id = JSON.stringify([request.roomId, request.scope, request.minute])
      const waiting: Waiting = { request, resolve, reject }
      const queue = queues.get(id)
      if (queue) return void queue.push(waiting)
      const fresh = [waiting]
      queues.set(id, fresh)
      void drain(id, fresh)
    })
  }
}

/** One check loop over a round of requests for the same counter; answers in the order they came. */
async function takeRound(kv: KvLike, settings: CounterSettings, requests: CounterRequest[]): Promise<CounterResult[]> {
  const { roomId, scope, minute } = requests[0]!
  const keys = roomKeys(settings.prefix, roomId)
  const counterKey = keys.counter(scope, minute)
  // Minute − 1 is read (and checked) only when some request of the round asks for the correction.
  const previousKey = requests.some((request) => request.previousReported !== undefined) ? keys.counter(scope, minute - 1) : undefined
  const tokens = [...new Set(requests.map((request) => request.token))]
  const tokenKeys = tokens.map((token) => keys.token(minute, token))
  // The room's epoch and generation, read when a request carries the worker's (`lossAtGrant`).
  const stateKeys = requests.some((request) => request.epoch !== undefined) ? [keys.epoch, keys.generation] : []
  const heads = [counterKey, keys.lost, ...(previousKey ? [previousKey] : []), ...stateKeys]
  // Re-entries' registers, read after the heads like tokens (none for a round of newcomers): the commit checks them.
  let registerKeys: KvKey[] | undefined
  for (const request of requests) if (request.reentry) (registerKeys ??= []).push(keys.register(request.reentry.ticket))
  const tails = registerKeys ? [...registerKeys, ...tokenKeys] : tokenKeys

  for (let attempt = 1; ; attempt++) {
    const entries = await retryBusy('reading a counter', settings.maxAttempts, () => readRound(kv, heads, tails))
    const counter = entries[0]!
    const lostEntry = entries[1]!
    const lostMinute = lostEntry.value === null ? undefined : Number((lostEntry.value as { value: bigint }).value)
    const previousEntry = previousKey ? entries[2]! : undefined
    const [epochEntry, generationEntry] = stateKeys.length > 0 ? entries.slice(heads.length - 2, heads.length) : []
    const tokenEntries = entries.slice(heads.length + (registerKeys?.length ?? 0))
    const registers = registerKeys && entries.slice(heads.length, heads.length + registerKeys.length)
    const previous = previousEntry ? counterValue(previousEntry) : 0
    const marked = epochEntry && generationEntry && (await markedLoss(kv, keys, requests, lostMinute, epochEntry, generationEntry, lostEntry, settings))
    if (marked && attempt < settings.maxAttempts) continue
    const earlier = new Map<string, TokenAnswer>()
    tokenEntries.forEach((entry, i) => {
      const held = entry.value as TokenAnswer | null
      if (typeof held?.seq === 'number') earlier.set(tokens[i]!, held)
    })
    let next = counterValue(counter)
    const takenNow = new Map<string, number>()
    const granted: CounterRequest[] = []
    const results = requests.map((request): CounterResult => {
      const first = earlier.get(request.token)
      if (first) return repeatOf(first, scope)
      const seq = takenNow.get(request.token)
      if (seq !== undefined) return { taken: true, seq, repeat: true }
      if (refusesWhileRecovering(request, lostMinute)) return { taken: false, seq: next, recovering: true }
      // Each call its own limit: the round batches commits, not decisions.
      if (next >= effectiveLimit(request.limit, previous, request.previousReported)) return { taken: false, seq: next }
      takenNow.set(request.token, next)
      granted.push(request)
      return { taken: true, seq: next++ }
    })
    // Nothing to write: repeats are facts, and a full counter stays full (counts only grow, and minute − 1
    // growing only lowers the effective limit).
    if (takenNow.size === 0) return results
    if (marked) throw contended(roomId, scope, minute, attempt)

    const commit = () => {
      // The lost minute too: a loss marked between the read and this commit sends the round around the loop.
      const op = kv.atomic().check({ key: counterKey, versionstamp: counter.versionstamp }).check({ key: keys.lost, versionstamp: lostEntry.versionstamp })
      if (previousEntry) op.check({ key: previousEntry.key, versionstamp: previousEntry.versionstamp })
      // The epoch as compared: a state emptied or replaced meanwhile sends the round around the loop. (Not the
      // generation: every report advances it, and every grant would race every report.)
      if (epochEntry) op.check({ key: keys.epoch, versionstamp: epochEntry.versionstamp })
      op.set(counterKey, next, { expireIn: EXPIRE_IN_MS })
      // Each token still absent: another scope's round may have granted it since the read (one slot a minute, #14).
      for (const [token, seq] of takenNow) op.check({ key: keys.token(minute, token), versionstamp: null }).set(keys.token(minute, token), { seq, scope } satisfies TokenAnswer, { expireIn: EXPIRE_IN_MS })
      addAdmissions(op, keys, granted)
      if (registers) enterRegisters(op, granted, registers)
      return op.commit()
    }
    // Committing again while the file is busy is safe: the same check still guards it.
    const { ok } = await retryBusy(`taking a slot of ${scope}/${minute}`, settings.maxAttempts, commit)
    if (ok) return results
    if (attempt >= settings.maxAttempts) throw contended(roomId, scope, minute, attempt)
    await backoff(attempt)
  }
}

const contended = (roomId: string, scope: string, minute: number, attempt: number): WaitingRoomError =>
  new WaitingRoomError(
    'ERR_WR_COORDINATOR',
    `${DRIVER_NAME}: counter ${scope}/${minute} of room ${roomId} was still contended after ${attempt} attempts; ` +
      'raise the maxAttempts option or spread load over more locations',
  )

/**
 * Sets the re-entries' registers of the fresh grants `granted` to the grant's minute (moves.ts `reenteredRegister`),
 * each checked on the versionstamp read with the round (`registers`: the entries of the round's re-entries' keys).
 */
function enterRegisters(op: KvAtomic, granted: CounterRequest[], registers: KvEntryMaybe[]): void {
  for (const { reentry, minute } of granted) {
    const entry = reentry && registers.find((e) => e.key.at(-1) === reentry.ticket)
    if (!reentry || !entry) continue
    op.check({ key: entry.key, versionstamp: entry.versionstamp })
    if (reenteredRegister(typeof entry.value === 'number' ? entry.value : undefined, minute) === undefined) continue
    op.set(entry.key, minute, { expireIn: Math.max(1, reentryExpiresAfter(reentry, minute) - minute + 1) * 60_000 })
  }
}

/**
 * Sums the fresh grants' `admissionDeltas` into their locations' state, one `sum` per (location, field),
 * and moves each location's `@updated` to at least the grant's minute, so a location that has admitted
 * users but not reported yet is not taken for a forgotten one.
 */
function addAdmissions(op: KvAtomic, keys: RoomKeys, granted: CounterRequest[]): void {
  const totals = new Map<string, Map<string, number>>()
  for (const request of granted) {
    if (request.location === undefined) continue
    let fields = totals.get(request.location)
    if (!fields) totals.set(request.location, (fields = new Map()))
    for (const [field, delta] of Object.entries(admissionDeltas(request))) fields.set(field, (fields.get(field) ?? 0) + delta)
  }
  for (const [location, fields] of totals) {
    for (const [field, total] of fields) op.sum(keys.field(location, field), BigInt(total))
    op.max(keys.updatedAt(location), BigInt(minuteStart(granted[0]!.minute)))
  }
}

/**
 * Reads strongly the counter, the room's lost minute, minute − 1's counter when asked, the room's epoch and
 * generation when asked (`counterKeys`), and the round's tokens. The counters come first, with as many tokens as fit in one getMany; later token chunks are read after them. That is
 * consistent: a token this round grants is checked absent by its commit, so one that appeared after it was read
 * (this counter's round or another scope's) fails the commit, and the round reads again.
 */
async function readRound(kv: KvLike, counterKeys: KvKey[], tokenKeys: KvKey[]): Promise<KvEntryMaybe[]> {
  const strong = { consistency: 'strong' } as const
  const inFirst = MAX_GET_MANY - counterKeys.length
  const first = await kv.getMany([...counterKeys, ...tokenKeys.slice(0, inFirst)], strong)
  const rest: Promise<readonly KvEntryMaybe[]>[] = []
  for (let i = inFirst; i < tokenKeys.length; i += MAX_GET_MANY) {
    rest.push(kv.getMany(tokenKeys.slice(i, i + MAX_GET_MANY), strong))
  }
  return [...first, ...(await Promise.all(rest)).flat()]
}

function counterValue(entry: KvEntryMaybe): number {
  if (entry.value === null) return 0
  if (typeof entry.value === 'number') return entry.value
  throw new WaitingRoomError(
    'ERR_WR_COORDINATOR',
    `${DRIVER_NAME}: key ${JSON.stringify(entry.key.map(String))} holds ${typeof entry.value}, not a counter; ` +
      'another program writes under this prefix — give the coordinator its own `prefix`',
  )
}
