/**
 * @module
 * The adapter's counter scripts with their SHA1s, precomputed so a call is one EVALSHA without hashing at
 * startup (Web Crypto is async, and an Edge isolate should not pay for it on its first request).
 * `scripts.test.ts` recomputes every hash; after editing a script, put the new hash it prints here.
 *
 * Rules every script keeps:
 * - Deterministic: the clock comes in as an argument (`at`, or the minute in the key), never `TIME`.
 * - Every key it touches shares the room's hash tag (`{room}`), so Redis Cluster keeps them in one slot;
 *   `sync` (other locations' hashes) and a grant's claim (the location index) derive keys from that tag, which
 *   a cluster allows within one slot.
 * - Replies hold integers, count field names and '@'-prefixed strings only: a REST client's automatic JSON
 *   deserialization turns "12" into 12 (read back with Number) but would parse a location named `[1]` or
 *   `{}` into an array or object — the '@' keeps every name a plain string.
 * - Cheap on the hot path (#16). Measured with callgrind on Redis 7.0 (instructions): a script starts at ~5,800,
 *   each KEYS/ARGV entry ~700–1,100 (a Lua string and a table slot), each `redis.call` ~2,000 around its command
 *   (arguments converted, the reply parsed back into Lua: ~1,000 more per element of an MGET), a `SET … EX` of a
 *   new key ~11,400 (`SETEX` ~10,600: two arguments fewer, so the scripts write with it), an INCR ~4,400, `tonumber` ~1,600 (strtod twice) against ~650 for `x + 0`. So the new-user
 *   path reads every key it needs in one MGET of string keys, writes with as few calls as the decision allows,
 *   coerces numbers with `+ 0`, passes numbers as strings (a Lua number costs Redis a printf), never scans a hash
 *   that grows with the minute's grants, and answers one integer. See the README's figures.
 *
 * A token's first answer is stored with its `attempt`, `*`-prefixed when the Anywhere counter gave it.
 * `attempt` is random per adapter call (hex): the same attempt again is a transport retry (the HTTP client
 * resending after a lost reply) and gets the first answer exactly; another attempt with the same token is a
 * repeat, flagged so nothing is counted twice. One token takes at most one slot per room and minute, from
 * either counter.
 */
import { COUNTER_TTL_SECONDS, GRANT_STATE_TTL_SECONDS, syncScript } from './sync-script.ts'
import { takeSlotScript, TOKEN_TTL_SECONDS } from './take-slots-script.ts'

export { COUNTER_TTL_SECONDS, GRANT_STATE_TTL_SECONDS, takeSlotScript, TOKEN_TTL_SECONDS }

export interface LuaScript {
  /** Name for errors and metrics. */
  readonly name: string
  readonly source: string
  /** Lowercase hex SHA1 of `source`, as Redis names it. */
  readonly sha1: string
}

/**
 * Lua: the first read of the increment script, one MGET of string keys (`got`): the token's first answer
 * (KEYS[token]), the room's lost minute (KEYS[lost]), the scope's counter of minute m and of m − 1. A token
 * holding its slot is answered before the recovery check; a fresh grant is refused while the lost minute is at
 * or after ARGV[threshold] (the request's minute − its recovery window; '' never refuses: `refusesWhileRecovering`).
 * The same MGET reads the room's epoch and generation (KEYS[epoch], KEYS[generation]) for {@link lossSource}.
 */
const readSource = (token: number, lost: number, epoch: number, generation: number): string => `local got = redis.call('MGET', KEYS[${token}], KEYS[${lost}], KEYS[3], KEYS[4], KEYS[${epoch}], KEYS[${generation}])
local earlier = got[1]`
const recoveringSource = (threshold: number): string =>
  `if got[2] and ARGV[${threshold}] ~= '' and got[2] + 0 >= ARGV[${threshold}] + 0 then return -1 end`

/**
 * Lua: `claim` holds a location hash just given its first grant of a minute. Gives it an expiry if it has
 * none, and lists the location in the room's index scored by the grant's minute (ms), so a location whose
 * workers never report is still seen by the others. Both keys are named from the hash's: `{prefix}:{{room}}:l:{name}`
 * (neither prefix nor room holds a brace), the index `{prefix}:{{room}}:locations` — the same hash slot.
 */
const claimSource = (minute: string): string => `if claim then
  if redis.call('TTL', claim) < 0 then redis.call('EXPIRE', claim, '${GRANT_STATE_TTL_SECONDS}') end
  local at = string.find(claim, '}', 1, true)
  local index = string.sub(claim, 1, at) .. ':locations'
  if redis.call('ZADD', index, 'GT', (${minute}) * 60000, string.sub(claim, at + 4)) == 1 and redis.call('TTL', index) < 0 then
    redis.call('EXPIRE', index, '${GRANT_STATE_TTL_SECONDS}')
  end
end
`

/**
 * Lua (#14.4, `lossAtGrant`), between the repeat check and the recovery check: the grant checks that the room's
 * state is the one the asking worker knew. ARGV[epoch] is the worker's epoch id ('' for none: nothing checked), or
 * the stored value itself (`at:reportId`, when the adapter knows it: one string equality, #16),
 * ARGV[generation] the highest generation of it it saw; `got[5]`/`got[6]` the stored epoch (`at:reportId`) and
 * generation, from the first MGET. An epoch absent or of another id, or a generation below the worker's, is a
 * state lost or put back since its last sync: marked as the sync script marks a sighting — `R{m}` in the location
 * hash KEYS[hash] (listed in the index like a grant's), the lost minute KEYS[lost] moved to m (and `got[2]`, so
 * the recovery check that follows refuses), the generation past the sighting — unless a loss is already marked
 * in minute m or later. No extra Redis call when nothing is lost.
 */
const lossSource = (k: { lost: number; generation: number; hash: number }, a: { epoch: number; generation: number; minute: string }): string => `if ARGV[${a.epoch}] ~= '' then
  local same = got[5] == ARGV[${a.epoch}] or got[5] and string.sub(got[5], (string.find(got[5], ':', 1, true) or 0) + 1) == ARGV[${a.epoch}]
  if not same or (got[6] ~= ARGV[${a.generation}] and (got[6] or 0) + 0 < ARGV[${a.generation}] + 0) then
    local generation, seen, minute = (got[6] or 0) + 0, ARGV[${a.generation}] + 0, ${a.minute}
    if (got[2] or -1) + 0 < minute then
      redis.call('HINCRBY', KEYS[${k.hash}], 'R' .. minute, 1)
      redis.call('SET', KEYS[${k.lost}], minute)
      redis.call('SET', KEYS[${k.generation}], same and seen + 1 or generation + 1)
      got[2] = minute
      local claim = KEYS[${k.hash}]
      ${claimSource('minute').trimEnd().replaceAll('\n', '\n      ')}
    end
  end
end`

/**
 * Lua: a re-entry's fresh grant (moves.ts `reenteredRegister`) sets the ticket's register `key` (`{room}:g:{ticket}`,
 * the sync script's) to the grant's minute unless it holds that minute or a later one, expiring in `ttl` seconds —
 * in the grant's script, so the slot, its count and the register land together. A newcomer passes no register key:
 * one nil check.
 */
const reentrySource = (key: string, ttl: string, minute: string): string =>
  `if ${key} then
  local held = tonumber(redis.call('GET', ${key}))
  if not held or held < ${minute} then redis.call('SETEX', ${key}, ${ttl}, ${minute}) end
end`

/**
 * One conditional minute counter (the core's unfused path, and bare counters in tests and benchmarks).
 * `kind` says where a grant's admission is counted: `L` the scope's own location, `B` nowhere (bare, a
 * location counter), `O` another location than the scope's, `A` a location (Anywhere counter), `Z` nowhere
 * (bare, Anywhere counter). A token's first answer is `{attempt}:{seq}`, `*`-prefixed for Anywhere (one
 * stored by takeSlot has no seq: 0 is answered). KEYS: the scope's location hash (for Anywhere, the admission's
 * location hash, or any room key), the token's key, the scope's counter (location or Anywhere: string keys) of
 * minute m, of m − 1, the hash of the location the admission counts for (else the first key again), the room's
 * lost minute. ARGV: attempt, limit, previous reported ('' for none), kind, the minute, the first admission
 * field (`~b{m}` on the scope's hash for B and O, `~h{m}` on the location's for A), the second (`~g{m}`, on the location's for O), recovery threshold (as takeSlot's), the worker's epoch id ('' for
 * none, and always for a bare call) and generation ({@link lossSource}, marking in the admission's location hash;
 * two more KEYS: the room's epoch and generation), the register's ttl seconds ('' for none; for a re-entry only,
 * KEYS[9] is the ticket's register: {@link reentrySource}). Reply: seq × 4 + taken + 2 × repeat; −1 refused while the
 * room recovers.
 */
export const incrementScript: LuaScript = {
  name: 'increment',
  source: `local K, attempt, kind = KEYS[2], ARGV[1], ARGV[4]
${readSource(2, 6, 7, 8)}
if earlier then
  local from, seq = string.match(earlier, '^%*?([^:]*):?(%d*)$')
  return (tonumber(seq) or 0) * 4 + 1 + (from == attempt and 0 or 2)
end
${lossSource({ lost: 6, generation: 8, hash: 5 }, { epoch: 9, generation: 10, minute: 'ARGV[5] + 0' })}
${recoveringSource(8)}
local seq, limit = (got[3] or 0) + 0, ARGV[2] + 0
local over = seq < limit and ARGV[3] ~= '' and (got[4] or 0) - ARGV[3] or 0
if over > 0 then limit = limit - over end
if seq >= limit then return seq * 4 end
local claim
redis.call('SETEX', K, '${TOKEN_TTL_SECONDS}', ((kind == 'A' or kind == 'Z') and '*' or '') .. attempt .. ':' .. seq)
${reentrySource('KEYS[9]', 'ARGV[11]', 'ARGV[5] + 0')}
if redis.call('INCR', KEYS[3]) == 1 then
  redis.call('EXPIRE', KEYS[3], '${COUNTER_TTL_SECONDS}')
  if kind == 'L' then claim = KEYS[1] end
end
if kind == 'B' or kind == 'O' then
  redis.call('HINCRBY', KEYS[1], ARGV[6], '1')
  if seq == 0 and redis.call('TTL', KEYS[1]) < 0 then redis.call('EXPIRE', KEYS[1], '${GRANT_STATE_TTL_SECONDS}') end
end
local field = kind == 'O' and ARGV[7] or kind == 'A' and ARGV[6]
if field and redis.call('HINCRBY', KEYS[5], field, '1') == 1 then claim = KEYS[5] end
${claimSource('ARGV[5] + 0')}return seq * 4 + 1
`,
  sha1: '74d5e78eadb349b8a463ad744492c8e30f0111ee',
}

export { syncScript }

export const SCRIPTS: readonly LuaScript[] = [incrementScript, takeSlotScript, syncScript]
