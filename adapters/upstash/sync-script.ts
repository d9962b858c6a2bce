/**
 * @module
 * The report script: merges one worker report into its location and answers with the room's epoch and
 * every location of the room. Rules as in `scripts.ts`.
 */
import type { LuaScript } from './scripts.ts'

/**
 * Seconds a minute's counter key (`{room}:c:{m}:{location}`, `{room}:a:{m}`) lives from its first slot: long
 * enough for every sync of the {@link MIRROR_MINUTES} after the minute to copy a location counter's final value.
 */
export const COUNTER_TTL_SECONDS = 720
/**
 * A sync copies each listed location's counters of the last MIRROR_MINUTES minutes (and of the next one, for a
 * worker whose clock runs ahead) into its hash as `~c{m}`, where the core's admissions are folded from
 * (room-state.ts). A grant only INCRs the string key (#16: one call, read by the grant's MGET): the copy
 * is the state's record of it once the key expires, so a room must see one sync (of any location) in the
 * MIRROR_MINUTES − 1 minutes after a grant for its admission to stay counted in the active sessions.
 */
export const MIRROR_MINUTES = 10
/**
 * Backstop expiry of a location hash or index first written by a grant (or by a sync's copy of a location's
 * counters). A report sets their real window (keepMinutes + 2) a moment later; this only bounds them if no
 * worker of the location ever reports.
 */
export const GRANT_STATE_TTL_SECONDS = 86_400

/**
 * Merges one worker report into its location and answers with every location of the room.
 * - The room's epoch (`at:reportId`) is read, and written if absent (no expiry): a room whose keys were
 *   lost (a restart without persistence, a FLUSHALL, an eviction) answers with a new one.
 * - The report id is claimed with SET NX (expiring), so a retried report adds nothing. Its deltas are
 *   HINCRBY'd (a field back at 0 is deleted); each `once` key is claimed room-wide with SET NX on its own key
 *   (`{room}:o:key`, expiring after the once retention) and its deltas added to the location, a key another
 *   report of the room claimed skipped — all in this one atomic step, whatever the concurrency or location.
 * - Old fields of the reporting location (the private `~` ones too) are dropped while the reply is read:
 *   the read happens anyway, so pruning costs only the HDELs of fields that just aged out. Location hashes
 *   and the index expire once silent.
 * - The room's generation (no expiry) is advanced by every sync that changes the state, in this step
 *   (`nextGeneration`; a report with no deltas and no once keys, or a retry, only reads): a report
 *   that saw a later generation of this epoch than the key holds finds an older copy put back (a Redis restarted
 *   from an older RDB or AOF), so the reporting location is marked recovering (`R{minute}`) and the generation
 *   moves past the one seen. A report that saw another epoch knew a state this one replaced: marked the same way
 *   (no jump), here rather than by the worker one report later.
 * - Each move (moves.ts) is a compare-and-move against the ticket's register `{room}:g:{ticket}` (same slot,
 *   expiring once its count left every window), exactly `moveStep`, on a retried report too (it changes nothing
 *   then); its deltas go to the location, and the minute each ticket holds is answered.
 * - Every `R{m}` mark added (by a report or here) moves the room's lost minute (KEYS[6]) up to m: the grant
 *   scripts read it and refuse while the room recovers.
 * - Each proposed reference traffic table (split14, reference.ts) is stored with SET NX on its minute's key
 *   (`{room}:f:{minute}`, same slot, expiring REFERENCE_KEEP_MINUTES after its minute): the first proposal of a
 *   minute, room-wide, is kept, and the stored one is answered for every minute proposed. A report without
 *   proposals reads one more argument and answers an empty list: nothing else.
 * KEYS: location hash, the room's location index (zset: name → last merge ms), report id marker, epoch,
 * generation, lost minute.
 * ARGV: location, at (ms), keepMinutes, location key prefix, report id ttl seconds, epoch if new
 * (`at:reportId`), number of delta pairs D, once key prefix, once ttl seconds, the epoch id the report saw a
 * generation of ('' for none), that generation, register key prefix, number of moves M, number of references R,
 * D × (field, delta), then per once key: key, pairs P, P × (field, delta), then M × (ticket, from or '', to,
 * since, register ttl seconds), then R × (minute, the reference as JSON, ttl seconds).
 * Reply: '@'..epoch, the generation, {ticket, minute held (−1: ended), ...}, {'@'..stored reference JSON, ...}
 * (one per proposal, in order), then flat triples {'@'..name, updatedAt, {field, value, ...}}.
 */
export const syncScript: LuaScript = {
  name: 'sync',
  source: `local location, at, keep = ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3])
local H = KEYS[1]
local oldest = math.floor(at / 60000) - keep
local ttl = (keep + 2) * 60
local epoch = redis.call('GET', KEYS[4])
if not epoch then
  epoch = ARGV[6]
  redis.call('SET', KEYS[4], epoch)
end
local function add(field, delta)
  if redis.call('HINCRBY', H, field, delta) == 0 then redis.call('HDEL', H, field) end
  if string.byte(field) == 82 and tonumber(delta) > 0 then
    local minute, held = tonumber(string.sub(field, 2)), tonumber(redis.call('GET', KEYS[6]))
    if minute and (not held or minute > held) then redis.call('SET', KEYS[6], minute) end
  end
end
local changed = false
local referencesAt = #ARGV - 3 * tonumber(ARGV[14])
local movesAt = referencesAt - 5 * tonumber(ARGV[13])
if redis.call('SET', KEYS[3], '1', 'NX', 'EX', ARGV[5]) then
  local i, last = 15, 14 + 2 * tonumber(ARGV[7])
  changed = last > 14 or movesAt > last
  while i < last do
    add(ARGV[i], ARGV[i + 1])
    i = i + 2
  end
  while i < movesAt do
    local count = tonumber(ARGV[i + 1])
    if redis.call('SET', ARGV[8] .. ARGV[i], '1', 'NX', 'EX', ARGV[9]) then
      for j = i + 2, i + 2 * count, 2 do add(ARGV[j], ARGV[j + 1]) end
    end
    i = i + 2 + 2 * count
  end
  redis.call('ZADD', KEYS[2], 'GT', at, location)
  redis.call('EXPIRE', H, ttl)
  redis.call('EXPIRE', KEYS[2], ttl)
end
local moved, movedAny = {}, false
local function step(ticket, from, to, since, ttl)
  local key = ARGV[12] .. ticket
  local held = tonumber(redis.call('GET', key))
  if held and held >= to then return held end
  local counted = held or from
  if counted and counted >= to then return counted end
  if counted and counted >= since then
    add('a' .. counted, -1)
    add('a' .. to, 1)
  elseif not from or (held and held < from) then
    add('a' .. to, 1)
  else
    return -1
  end
  redis.call('SET', key, to, 'EX', ttl)
  movedAny = true
  return to
end
for i = movesAt + 1, referencesAt, 5 do
  moved[#moved + 1] = ARGV[i]
  -- As text: Redis turns a Lua number into an integer reply, cutting a position (2.875) to its minute.
  moved[#moved + 1] = tostring(step(ARGV[i], tonumber(ARGV[i + 1]), tonumber(ARGV[i + 2]), tonumber(ARGV[i + 3]), ARGV[i + 4]))
end
if movedAny then
  changed = true
  redis.call('ZADD', KEYS[2], 'GT', at, location)
  redis.call('EXPIRE', H, ttl)
end
local generation = tonumber(redis.call('GET', KEYS[5])) or 0
local seen = tonumber(ARGV[11]) or 0
if ARGV[10] ~= '' then
  local same = string.sub(epoch, string.find(epoch, ':', 1, true) + 1) == ARGV[10]
  if not same or seen > generation then
    add('R' .. math.floor(at / 60000), 1)
    redis.call('ZADD', KEYS[2], 'GT', at, location)
    redis.call('EXPIRE', H, ttl)
    if same then generation = seen end
    changed = true
  end
end
if changed then
  generation = generation + 1
  redis.call('SET', KEYS[5], generation)
end
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', '(' .. (at - ttl * 1000))
local counters, now = string.sub(ARGV[4], 1, -3) .. 'c:', math.floor(at / 60000)
local first = math.max(oldest, now - ${MIRROR_MINUTES})
local function mirror(key, name, fields)
  local names, found, set = {}, {}, {}
  for m = first, now + 1 do names[#names + 1] = counters .. m .. ':' .. name end
  local values, existed = redis.call('MGET', unpack(names)), #fields > 0
  for j = 1, #fields, 2 do found[fields[j]] = j end
  for j = 1, #values do
    local value = values[j]
    if value then
      local field = '~c' .. (first + j - 1)
      local held = found[field]
      if not held then
        fields[#fields + 1] = field
        fields[#fields + 1] = value
      end
      if not held or fields[held + 1] ~= value then
        if held then fields[held + 1] = value end
        set[#set + 1] = field
        set[#set + 1] = value
      end
    end
  end
  if #set > 0 then
    redis.call('HSET', key, unpack(set))
    if not existed then redis.call('EXPIRE', key, '${GRANT_STATE_TTL_SECONDS}') end
  end
  return fields
end
local references = {}
if referencesAt < #ARGV then
  local prefix = string.sub(ARGV[12], 1, -3) .. 'f:'
  for i = referencesAt + 1, #ARGV, 3 do
    local key, stored = prefix .. ARGV[i], ARGV[i + 1]
    if not redis.call('SET', key, stored, 'NX', 'EX', ARGV[i + 2]) then stored = redis.call('GET', key) end
    references[#references + 1] = '@' .. stored
  end
end
local reply = {'@' .. epoch, generation, moved, references}
local index = redis.call('ZRANGE', KEYS[2], 0, -1, 'WITHSCORES')
for i = 1, #index, 2 do
  local name = index[i]
  local key = ARGV[4] .. name
  local fields = mirror(key, name, redis.call('HGETALL', key))
  if name == location then
    local kept = {}
    for j = 1, #fields, 2 do
      local minute = tonumber(string.match(fields[j], '^%D+(%d+)'))
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
  sha1: '657f5897c721d54223edfd7146e99a70add1619a',
}
