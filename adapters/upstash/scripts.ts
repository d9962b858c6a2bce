/**
 * @module
 * The adapter's Lua scripts with their SHA1s, precomputed so a call is one EVALSHA without hashing at
 * startup (Web Crypto is async, and an Edge isolate should not pay for it on its first request).
 * `scripts.test.ts` recomputes every hash; after editing a script, put the new hash it prints here.
 *
 * Rules every script keeps:
 * - Deterministic: the clock comes in as an argument (`at`, or the minute in the key), never `TIME`.
 * - Every key it touches shares the room's hash tag (`{room}`), so Redis Cluster keeps them in one slot;
 *   `sync` derives the other locations' keys from that tag, which a cluster allows within one slot.
 * - Replies hold integers, count field names and '@'-prefixed location names only: a REST client's
 *   automatic JSON deserialization turns "12" into 12 (read back with Number) but would parse a location
 *   named `[1]` or `{}` into an array or object — the '@' keeps every name a plain string.
 */

export interface LuaScript {
  /** Name for errors and metrics. */
  readonly name: string
  readonly source: string
  /** Lowercase hex SHA1 of `source`, as Redis names it. */
  readonly sha1: string
}

/**
 * One conditional minute counter. A counter is a hash of token → "seq:attempt", so its count is its
 * length and a repeated token finds its first answer. `attempt` is random per adapter call: the same
 * attempt again is a transport retry (the HTTP client resending after a lost reply) and gets the first
 * answer exactly; another attempt with the same token is a repeat, flagged so the core counts nothing.
 * With a previous-reported value, the limit is lowered by what the same scope's counter of minute − 1
 * gave beyond it (`effectiveLimit` in src/coordination/coordinator.ts); '' leaves the limit as it is.
 * KEYS[1] counter, KEYS[2] the same scope's counter of minute − 1. ARGV: token, limit, ttl seconds,
 * attempt, previous reported ('' for none). Reply: {taken 0|1, seq, repeat 0|1}.
 */
export const incrementScript: LuaScript = {
  name: 'increment',
  source: `local earlier = redis.call('HGET', KEYS[1], ARGV[1])
if earlier then
  local seq, attempt = string.match(earlier, '^(%d+):(.*)$')
  return {1, tonumber(seq), attempt == ARGV[4] and 0 or 1}
end
local seq = redis.call('HLEN', KEYS[1])
local limit = tonumber(ARGV[2])
if ARGV[5] ~= '' then limit = limit - math.max(0, redis.call('HLEN', KEYS[2]) - tonumber(ARGV[5])) end
if seq >= limit then return {0, seq, 0} end
redis.call('HSET', KEYS[1], ARGV[1], seq .. ':' .. ARGV[4])
if seq == 0 then redis.call('EXPIRE', KEYS[1], ARGV[3]) end
return {1, seq, 0}
`,
  sha1: '1daf04a5764c80645b8e7dd0b550bcd5bbe725f6',
}

/**
 * A new user's whole decision in one round trip: the location counter, then the Anywhere counter
 * (seed 000). The token is looked up in both counters before anything is taken, so a retry finds its
 * first answer even if the limits grew since. Values, attempts and previous-reported corrections as in
 * {@link incrementScript}. KEYS[1] location counter, KEYS[2] Anywhere counter, KEYS[3] and KEYS[4] the
 * same two of minute − 1. ARGV: token, location limit, Anywhere limit, ttl seconds, attempt, location
 * previous reported, Anywhere previous reported ('' for none). Reply: {via 0 none | 1 location |
 * 2 Anywhere, repeat 0|1}.
 */
export const takeSlotScript: LuaScript = {
  name: 'takeSlot',
  source: `local token, attempt = ARGV[1], ARGV[5]
for via = 1, 2 do
  local earlier = redis.call('HGET', KEYS[via], token)
  if earlier then return {via, string.match(earlier, ':(.*)$') == attempt and 0 or 1} end
end
for via = 1, 2 do
  local limit, reported = tonumber(ARGV[via + 1]), ARGV[via + 5]
  if limit > 0 and reported ~= '' then
    limit = limit - math.max(0, redis.call('HLEN', KEYS[via + 2]) - tonumber(reported))
  end
  local seq = redis.call('HLEN', KEYS[via])
  if seq < limit then
    redis.call('HSET', KEYS[via], token, seq .. ':' .. attempt)
    if seq == 0 then redis.call('EXPIRE', KEYS[via], ARGV[4]) end
    return {via, 0}
  end
end
return {0, 0}
`,
  sha1: '9fbec58bf07309f4df1f2596d6c7da7ab5d61346',
}

/**
 * Merges one worker report into its location and answers with every location of the room.
 * The report id is claimed with SET NX (expiring), so a retried report adds nothing. Old fields of the
 * reporting location are dropped while the reply is read — the read happens anyway, so pruning costs
 * only the HDELs of fields that just aged out. Location hashes and the index expire once silent.
 * KEYS[1] location hash, KEYS[2] room's location index (zset: name → last merge ms), KEYS[3] report id.
 * ARGV: location, at (ms), keepMinutes, location key prefix, report id ttl seconds, then field, delta pairs.
 * Reply: flat triples {'@'..name, updatedAt, {field, value, ...}}.
 */
export const syncScript: LuaScript = {
  name: 'sync',
  source: `local location, at, keep = ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3])
local oldest = math.floor(at / 60000) - keep
local ttl = (keep + 2) * 60
if redis.call('SET', KEYS[3], '1', 'NX', 'EX', ARGV[5]) then
  for i = 6, #ARGV, 2 do
    if redis.call('HINCRBY', KEYS[1], ARGV[i], ARGV[i + 1]) == 0 then redis.call('HDEL', KEYS[1], ARGV[i]) end
  end
  redis.call('ZADD', KEYS[2], 'GT', at, location)
  redis.call('EXPIRE', KEYS[1], ttl)
  redis.call('EXPIRE', KEYS[2], ttl)
end
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', '(' .. (at - ttl * 1000))
local reply = {}
local index = redis.call('ZRANGE', KEYS[2], 0, -1, 'WITHSCORES')
for i = 1, #index, 2 do
  local name = index[i]
  local key = ARGV[4] .. name
  local fields = redis.call('HGETALL', key)
  if name == location then
    local kept = {}
    for j = 1, #fields, 2 do
      local minute = tonumber(string.match(fields[j], '^%a(%d+)'))
      if minute and minute < oldest then
        redis.call('HDEL', key, fields[j])
      else
        kept[#kept + 1] = fields[j]
        kept[#kept + 1] = fields[j + 1]
      end
    end
    fields = kept
  end
  reply[#reply + 1] = '@' .. name
  reply[#reply + 1] = tonumber(index[i + 1])
  reply[#reply + 1] = fields
end
return reply
`,
  sha1: 'b0c130bdd6f5a0d4f43f3b0bfd73fc804fe256fb',
}

export const SCRIPTS: readonly LuaScript[] = [incrementScript, takeSlotScript, syncScript]
