/**
 * @module
 * The adapter's counter scripts with their SHA1s, precomputed so a call is one EVALSHA without hashing at
 * startup (Web Crypto is async, and an Edge isolate should not pay for it on its first request).
 * `scripts.test.ts` recomputes every hash; after editing a script, put the new hash it prints here.
 *
 * Rules every script keeps:
 * - Deterministic: the clock comes in as an argument (`at`, or the minute in the key), never `TIME`.
 * - Every key it touches shares the room's hash tag (`{room}`), so Redis Cluster keeps them in one slot;
 *   `sync` derives the other locations' keys from that tag, which a cluster allows within one slot.
 * - Replies hold integers, count field names and '@'-prefixed strings only: a REST client's automatic JSON
 *   deserialization turns "12" into 12 (read back with Number) but would parse a location named `[1]` or
 *   `{}` into an array or object — the '@' keeps every name a plain string.
 * - Cheap on the hot path (#16): Redis spends most of a script's time per `redis.call` (~2.5 µs each on the
 *   test machine) and per argument, so the new-user path makes as few calls as the decision allows, field
 *   names come precomputed, and the reply is one integer. See the README's figures.
 *
 * A token's first answer is stored with its `attempt`, `*`-prefixed when the Anywhere counter gave it.
 * `attempt` is random per adapter call (hex): the same attempt again is a transport retry (the HTTP client
 * resending after a lost reply) and gets the first answer exactly; another attempt with the same token is a
 * repeat, flagged so nothing is counted twice. One token takes at most one slot per room and minute, from
 * either counter.
 */
import { DEFAULT_RECOVERY_MINUTES } from '../../src/coordination/coordinator.ts'
import { syncScript } from './sync-script.ts'

export interface LuaScript {
  /** Name for errors and metrics. */
  readonly name: string
  readonly source: string
  /** Lowercase hex SHA1 of `source`, as Redis names it. */
  readonly sha1: string
}

/** Seconds a minute's token hash lives: the minute plus COUNTER_TTL_MINUTES (3) and a margin. */
export const TOKEN_TTL_SECONDS = 300
/**
 * Backstop expiry of a location hash or index first written by a grant. A report sets their real window
 * (keepMinutes + 2) a moment later; this only bounds them if no worker of the location ever reports.
 */
export const GRANT_STATE_TTL_SECONDS = 86_400

/**
 * Lua: `claim` holds a location hash just given its first grant of a minute. Gives it an expiry if it has
 * none, and lists the location in the room's index (KEYS[index]) scored by the grant's minute (ms), so a
 * location whose workers never report is still seen by the others. The name is the hash key's tail: both
 * keys are `{prefix}:{{room}}:…`, the index `…:locations` (10 characters after the room), the hash `…:l:{name}`.
 */
const claimSource = (index: number, minuteField: string): string => `if claim then
  if redis.call('TTL', claim) < 0 then redis.call('EXPIRE', claim, ${GRANT_STATE_TTL_SECONDS}) end
  local name = string.sub(claim, #KEYS[${index}] - 6)
  local score = tonumber(string.sub(${minuteField}, 3)) * 60000
  if redis.call('ZADD', KEYS[${index}], 'GT', score, name) == 1 and redis.call('TTL', KEYS[${index}]) < 0 then
    redis.call('EXPIRE', KEYS[${index}], ${GRANT_STATE_TTL_SECONDS})
  end
end
`

/**
 * Lua: the condition under which a grant is refused as recovering (`refusesWhileRecovering`): the room's lost
 * minute (KEYS[key]) is set and the request's minute (from the `~c{m}` field ARGV[minuteField]) is within the
 * recovery window ARGV[window] ('' for the default) of it. The caller ends the `if` with what follows it.
 */
const recoveringSource = (key: number, window: number, minuteField: number): string => `local lost = redis.call('GET', KEYS[${key}])
local window = tonumber(ARGV[${window}]) or ${DEFAULT_RECOVERY_MINUTES}
if lost and window > 0 and tonumber(string.sub(ARGV[${minuteField}], 3)) <= tonumber(lost) + window`

/**
 * Lua (#14.4, `lossAtGrant`): the grant checks that the room's state is the one the asking worker knew. ARGV[epoch]
 * is the worker's epoch id ('' for none: nothing checked), ARGV[generation] the highest generation of it it saw.
 * An epoch key (KEYS[epochKey], `at:reportId`) absent or of another id, or a generation (KEYS[generationKey]) below
 * the worker's, is a state lost or put back since its last sync: marked as the sync script marks a sighting —
 * `R{m}` in the location hash KEYS[hash] (listed in the index KEYS[index] like a grant's), the lost minute
 * KEYS[lost] moved to m, the generation past the sighting — unless a loss is already marked in minute m or later.
 * The recovery check that follows then refuses the grant. One MGET when nothing is lost.
 */
const lossSource = (k: { epochKey: number; generationKey: number; lost: number; hash: number; index: number }, a: { epoch: number; generation: number; minuteField: number }): string => `if ARGV[${a.epoch}] ~= '' then
  local held = redis.call('MGET', KEYS[${k.epochKey}], KEYS[${k.generationKey}])
  local same = held[1] and string.sub(held[1], (string.find(held[1], ':', 1, true) or 0) + 1) == ARGV[${a.epoch}]
  local generation, seen = tonumber(held[2]) or 0, tonumber(ARGV[${a.generation}]) or 0
  local minute = tonumber(string.sub(ARGV[${a.minuteField}], 3))
  if (not same or generation < seen) and (tonumber(redis.call('GET', KEYS[${k.lost}])) or -1) < minute then
    redis.call('HINCRBY', KEYS[${k.hash}], 'R' .. minute, 1)
    redis.call('SET', KEYS[${k.lost}], minute)
    redis.call('SET', KEYS[${k.generationKey}], same and seen + 1 or generation + 1)
    local claim = KEYS[${k.hash}]
    ${claimSource(k.index, `ARGV[${a.minuteField}]`).trimEnd().replaceAll('\n', '\n    ')}
  end
end
`

/**
 * A new user's whole decision in one round trip: the location counter, then the Anywhere counter (seed 000),
 * with the admission counted in the location's state by the same write (`~c`/`~h`: keys.ts `grantFields`).
 * A token already holding a slot this minute gets its first answer, even if the limits changed since.
 * With a previous-reported value ('' for none), a counter's limit is lowered by what it gave in minute − 1
 * beyond it (`effectiveLimit`). Calls inside Redis: location grant 3, Anywhere grant 4–5, no slot 2, repeat
 * 2–3, plus 3–4 the first time in a minute a location is given a slot. A token's first answer is its
 * attempt, `*`-prefixed when the Anywhere counter gave it (attempts are hex).
 * KEYS: location hash, tokens of minute m, tokens of minute m − 1, the room's location index, its lost minute,
 * its epoch, its generation. ARGV: token, location limit, Anywhere limit, location previous reported, Anywhere
 * previous reported, attempt, `~c{m}`, `~c{m−1}`, recovery window in minutes ('' for the default), the worker's
 * epoch id ('' for none) and generation ({@link lossSource}, first). Reply: 0 no slot, 1 location,
 * 2 Anywhere; + 4 for a repeat; + 8 × the granting counter's value before a fresh grant (its seq: the core
 * compares it with what it saw taken); −1 refused while the room recovers (a token holding its slot is answered).
 */
export const takeSlotScript: LuaScript = {
  name: 'takeSlot',
  source: `${lossSource({ epochKey: 6, generationKey: 7, lost: 5, hash: 1, index: 4 }, { epoch: 10, generation: 11, minuteField: 7 })}local H, T, token, attempt = KEYS[1], KEYS[2], ARGV[1], ARGV[6]
local earlier, claim, via
${recoveringSource(5, 9, 7)} and not redis.call('HGET', T, token) then return -1 end
local limit = tonumber(ARGV[2])
if limit > 0 then
  local counts = redis.call('HMGET', H, ARGV[7], ARGV[8])
  local seq = tonumber(counts[1]) or 0
  if ARGV[4] ~= '' then limit = limit - math.max(0, (tonumber(counts[2]) or 0) - tonumber(ARGV[4])) end
  if seq < limit then
    if redis.call('HSETNX', T, token, attempt) == 0 then
      earlier = redis.call('HGET', T, token)
    else
      redis.call('HINCRBY', H, ARGV[7], '1')
      if seq > 0 then return 1 + 8 * seq end
      redis.call('EXPIRE', T, ${TOKEN_TTL_SECONDS})
      claim, via = H, 1
    end
  end
end
if not earlier and not claim then
  local got = redis.call('HMGET', T, token, '*')
  earlier = got[1]
  if not earlier then
    limit = tonumber(ARGV[3])
    local seq = tonumber(got[2]) or 0
    if seq < limit and ARGV[5] ~= '' then
      limit = limit - math.max(0, (tonumber(redis.call('HGET', KEYS[3], '*')) or 0) - tonumber(ARGV[5]))
    end
    if seq >= limit then return 0 end
    redis.call('HSET', T, token, '*' .. attempt, '*', seq + 1)
    if seq == 0 then redis.call('EXPIRE', T, ${TOKEN_TTL_SECONDS}) end
    if redis.call('HINCRBY', H, '~h' .. string.sub(ARGV[7], 3), '1') > 1 then return 2 + 8 * seq end
    claim, via = H, 2
  end
end
if earlier then
  local anywhere = string.sub(earlier, 1, 1) == '*'
  local from = string.match(earlier, '^%*?([^:]*)')
  return (anywhere and 2 or 1) + (from == attempt and 0 or 4)
end
${claimSource(4, 'ARGV[7]')}return via
`,
  sha1: 'b2ed689bea15f990ab2382fdcc44ed862b94f58f',
}

/**
 * One conditional minute counter (the core's unfused path, and bare counters in tests and benchmarks).
 * `kind` says where a grant's admission is counted: `L` the scope's own location, `B` nowhere (bare, a
 * location counter), `O` another location than the scope's, `A` a location (Anywhere counter), `Z` nowhere
 * (bare, Anywhere counter). A token's first answer is `{attempt}:{seq}`, `*`-prefixed for Anywhere (one
 * stored by takeSlot has no seq: 0 is answered). KEYS: the scope's location hash (any room key for
 * Anywhere), tokens of minute m, tokens of minute m − 1, the hash of the location the admission counts for
 * (else the first key again), the room's location index, its lost minute. ARGV: token, limit, previous reported
 * ('' for none), attempt, kind, counter field (`~c{m}` or `*`), its minute − 1 field (`~c{m−1}` or `*`), the first
 * admission field (`~b{m}` on the scope's hash for B and O, `~h{m}` on the location's for A), the second
 * (`~g{m}`, on the location's for O), `~c{m}` (the minute, for the index and the recovery check), recovery window
 * ('' for the default), the worker's epoch id ('' for none, and always for a bare call) and generation
 * ({@link lossSource}, marking in the location's hash, KEYS[4]; with two more KEYS: the room's epoch and
 * generation). Reply: seq × 4 + taken + 2 × repeat; −1 refused while the room recovers.
 */
export const incrementScript: LuaScript = {
  name: 'increment',
  source: `local T, token, attempt, kind = KEYS[2], ARGV[1], ARGV[4], ARGV[5]
local earlier = redis.call('HGET', T, token)
if earlier then
  local from, seq = string.match(earlier, '^%*?([^:]*):?(%d*)$')
  return (tonumber(seq) or 0) * 4 + 1 + (from == attempt and 0 or 2)
end
${lossSource({ epochKey: 7, generationKey: 8, lost: 6, hash: 4, index: 5 }, { epoch: 12, generation: 13, minuteField: 10 })}${recoveringSource(6, 11, 10)} then return -1 end
local anywhere = kind == 'A' or kind == 'Z'
local seq = tonumber(redis.call('HGET', anywhere and T or KEYS[1], ARGV[6])) or 0
local limit = tonumber(ARGV[2])
if seq < limit and ARGV[3] ~= '' then
  local before = tonumber(redis.call('HGET', anywhere and KEYS[3] or KEYS[1], ARGV[7])) or 0
  limit = limit - math.max(0, before - tonumber(ARGV[3]))
end
if seq >= limit then return seq * 4 end
local claim
if anywhere then
  redis.call('HSET', T, token, '*' .. attempt .. ':' .. seq, '*', seq + 1)
else
  redis.call('HSET', T, token, attempt .. ':' .. seq)
  redis.call('HINCRBY', KEYS[1], ARGV[6], '1')
  if seq == 0 and kind == 'L' then claim = KEYS[1] end
end
if seq == 0 then redis.call('EXPIRE', T, ${TOKEN_TTL_SECONDS}) end
if kind == 'B' or kind == 'O' then
  redis.call('HINCRBY', KEYS[1], ARGV[8], '1')
  if seq == 0 and redis.call('TTL', KEYS[1]) < 0 then redis.call('EXPIRE', KEYS[1], ${GRANT_STATE_TTL_SECONDS}) end
end
local field = kind == 'O' and ARGV[9] or kind == 'A' and ARGV[8]
if field and redis.call('HINCRBY', KEYS[4], field, '1') == 1 then claim = KEYS[4] end
${claimSource(5, 'ARGV[10]')}return seq * 4 + 1
`,
  sha1: 'e18a032a238953f9eae1ad33f94b9a3c3ae73f4a',
}

export { syncScript }

export const SCRIPTS: readonly LuaScript[] = [incrementScript, takeSlotScript, syncScript]
