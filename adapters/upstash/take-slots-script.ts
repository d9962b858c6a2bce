/**
 * @module
 * The new-user decision script (#16, batch17): a batch of slot requests of one room, decided one after another in
 * arrival order inside ONE atomic EVALSHA — each exactly as a call of its own would decide it, at its own ticket
 * key — so the script's fixed cost (its start, the room's lost minute, epoch and generation, the counters'
 * reads and writes) is paid once per batch. `takeSlot` is a batch of one: one Lua body for both.
 *
 * Per request, as before: the location counter, then the Anywhere counter (seed 000); a ticket holding a slot
 * this minute gets its first answer (its attempt again: a transport retry, answered as the first time; another
 * attempt: a repeat); the grant-time epoch check (#14.4, `lossAtGrant`); the recovery window; `effectiveLimit`;
 * a re-entry's register. Every key is read once by one MGET into `val` (keyed by name, so two requests of the
 * batch sharing a counter or a ticket see each other's grants, exactly as sequential calls would); the ticket's
 * answer and a re-entry's register are written at once, the counters, the Anywhere admissions (`~h`) and the
 * location claims once at the end, with the totals — the same final state as the calls one by one.
 *
 * KEYS: the room's lost minute, epoch, generation; per profile (`p` = 1..P) its location counter of minute m,
 * of m − 1, the Anywhere counter of m, of m − 1; per request (i = 1..N) its ticket key; per profile its location
 * hash and its register (the hash again when not a re-entry). All but the last 2P are string keys, read by the MGET.
 * ARGV: the batch's attempt, P, per profile 9 fields (location limit, Anywhere limit, location previous reported,
 * Anywhere previous reported ('' for none), minute, recovery threshold ('' never refuses), the worker's epoch
 * ('' for none) and generation, the register's ttl ('' for no re-entry)), then per request its profile's number.
 * A profile is what requests of one location and view share, so a crowd's batch usually has one.
 * Request i's attempt is `{attempt}.{i}`: two requests of a batch with one ticket are two attempts (the second a
 * repeat), and a resent batch is every attempt again. Reply: an array, per request 0 no slot, 1 location, 2
 * Anywhere; + 4 for a repeat; + 8 × the granting counter's value before a fresh grant; −1 refused while the room
 * recovers. Rules of every script (scripts.ts) hold: no clock read, every key in the room's hash slot.
 */
import type { LuaScript } from './scripts.ts'
import { COUNTER_TTL_SECONDS, GRANT_STATE_TTL_SECONDS } from './sync-script.ts'

/** Seconds a token's answer and a minute's Anywhere counter live: the minute plus COUNTER_TTL_MINUTES (3) and a margin. */
export const TOKEN_TTL_SECONDS = 300

/** Fields per profile in ARGV (see the module). */
export const PROFILE_FIELDS = 9

const source = `local attempt, P = ARGV[1], ARGV[2] + 0
local T = 3 + 4 * P
local N = #ARGV - 2 - ${PROFILE_FIELDS} * P
local LOST, EPOCH, GEN = KEYS[1], KEYS[2], KEYS[3]
local got = redis.call('MGET', unpack(KEYS, 1, T + N))
local val = {}
for i = 1, T + N do
  local k = KEYS[i]
  if val[k] == nil then val[k] = got[i] end
end
local profiles, base, added, counters, hadds, claims, claimed, out = {}, {}, {}, {}, {}, {}, {}, {}
local function profile(p)
  local b, k, h = 2 + ${PROFILE_FIELDS} * (p - 1), 3 + 4 * (p - 1), T + N + 2 * (p - 1)
  local f = { lm = KEYS[k + 1], lm1 = KEYS[k + 2], am = KEYS[k + 3], am1 = KEYS[k + 4], hash = KEYS[h + 1], register = KEYS[h + 2],
    llimit = ARGV[b + 1] + 0, alimit = ARGV[b + 2] + 0, lprev = ARGV[b + 3], aprev = ARGV[b + 4], minute = ARGV[b + 5] + 0,
    threshold = ARGV[b + 6], epoch = ARGV[b + 7], generation = ARGV[b + 8], ttl = ARGV[b + 9] }
  profiles[p] = f
  return f
end
local function claim(hash, minute)
  local at = claims[hash]
  if not at then claimed[#claimed + 1] = hash end
  if not at or at < minute then claims[hash] = minute end
end
local function count(k)
  if not added[k] then added[k] = 0; base[k] = val[k]; counters[#counters + 1] = k end
  added[k] = added[k] + 1
  val[k] = (val[k] or 0) + 1
end
local function take(K, answer, f)
  redis.call('SETEX', K, '${TOKEN_TTL_SECONDS}', answer)
  val[K] = answer
  if f.ttl ~= '' then
    local held = tonumber(redis.call('GET', f.register))
    if not held or held < f.minute then redis.call('SETEX', f.register, f.ttl, f.minute) end
  end
end
local function lossAtGrant(f)
  local e, g = val[EPOCH], val[GEN]
  local same = e == f.epoch or e and string.sub(e, (string.find(e, ':', 1, true) or 0) + 1) == f.epoch
  if same and (g == f.generation or (g or 0) + 0 >= f.generation + 0) then return end
  local m = f.minute
  if (val[LOST] or -1) + 0 >= m then return end
  local generation = same and f.generation + 1 or (g or 0) + 1
  redis.call('HINCRBY', f.hash, 'R' .. m, 1)
  redis.call('SET', LOST, m)
  redis.call('SET', GEN, generation)
  val[LOST], val[GEN] = m, generation
  claim(f.hash, m)
end
local function grant(f, K, a)
  local limit, seq = f.llimit
  if limit > 0 then
    seq = (val[f.lm] or 0) + 0
    local over = f.lprev ~= '' and (val[f.lm1] or 0) - f.lprev or 0
    if over > 0 then limit = limit - over end
    if seq < limit then
      take(K, a, f)
      count(f.lm)
      if seq == 0 then claim(f.hash, f.minute) end
      return 1 + 8 * seq
    end
  end
  limit, seq = f.alimit, (val[f.am] or 0) + 0
  local over = seq < limit and f.aprev ~= '' and (val[f.am1] or 0) - f.aprev or 0
  if over > 0 then limit = limit - over end
  if seq >= limit then return 0 end
  take(K, '*' .. a, f)
  count(f.am)
  local field = '~h' .. f.minute
  local h = hadds[f.hash .. '\\0' .. field]
  if not h then h = { f.hash, field, 0, f.minute }; hadds[f.hash .. '\\0' .. field] = h; hadds[#hadds + 1] = h end
  h[3] = h[3] + 1
  return 2 + 8 * seq
end
for i = 1, N do
  local p = ARGV[2 + ${PROFILE_FIELDS} * P + i] + 0
  local f = profiles[p] or profile(p)
  local K, a = KEYS[T + i], attempt .. '.' .. i
  local earlier = val[K]
  if earlier then
    out[i] = (string.byte(earlier) == 42 and 2 or 1) + (string.match(earlier, '^%*?([^:]*)') == a and 0 or 4)
  else
    if f.epoch ~= '' then lossAtGrant(f) end
    local lost = val[LOST]
    if lost and f.threshold ~= '' and lost + 0 >= f.threshold + 0 then out[i] = -1 else out[i] = grant(f, K, a) end
  end
end
for _, k in ipairs(counters) do
  if (base[k] or 0) + 0 > 0 then redis.call('INCRBY', k, added[k]) else redis.call('SETEX', k, '${COUNTER_TTL_SECONDS}', added[k]) end
end
for _, h in ipairs(hadds) do
  if redis.call('HINCRBY', h[1], h[2], h[3]) == h[3] then claim(h[1], h[4]) end
end
for _, hash in ipairs(claimed) do
  if redis.call('TTL', hash) < 0 then redis.call('EXPIRE', hash, '${GRANT_STATE_TTL_SECONDS}') end
  local at = string.find(hash, '}', 1, true)
  local index = string.sub(hash, 1, at) .. ':locations'
  if redis.call('ZADD', index, 'GT', claims[hash] * 60000, string.sub(hash, at + 4)) == 1 and redis.call('TTL', index) < 0 then
    redis.call('EXPIRE', index, '${GRANT_STATE_TTL_SECONDS}')
  end
end
return out
`

/** The batch decision script; `sha1` is checked by scripts.test.ts (after an edit, put the hash it prints here). */
export const takeSlotScript: LuaScript = {
  name: 'takeSlot',
  source,
  sha1: 'b00572bc62067eeeff0d0cc321ac62a85233bf13',
}
