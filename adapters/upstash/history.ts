/**
 * @module
 * The room's history in Redis: one hash per (room, minute), `{prefix}:{{room}}:h:{minute}`, whose fields are
 * `{location}\n{field}`; a sorted set of the minutes held (for range reads and pruning); and a marker per
 * batch id (SET NX EX), so a batch is applied once. Counters are HINCRBY'd, gauges (`max:` fields) kept at
 * the highest value, all in one script call per batch. Retention: minutes older than the batch's retention
 * are deleted by the next batch (the clock is the batch's, never the server's), and each minute's hash also
 * expires retention + 1 hour after its last write, so a room nobody writes to any more does not stay forever.
 * Rules as in `scripts.ts` (deterministic, one hash tag, replies of integers and '@'-strings).
 */
import { HISTORY_DEDUPE_MINUTES, isMaxField, oldestKeptMinute, validBatch, type HistoryBatch, type HistoryQuery, type HistoryRow } from '../../src/history/model.ts'
import { replyArray, runScript, type RedisScripting } from './run-script.ts'
import type { LuaScript } from './scripts.ts'

/**
 * KEYS: minute index (zset), batch id marker.
 * ARGV: minute key prefix, oldest minute kept, batch id ttl s, minute ttl s, then quadruples (minute, kind
 * 'a' add | 'm' max, `{location}\n{field}`, value). Reply: 1 applied, 0 a repeated batch id.
 */
export const recordHistoryScript: LuaScript = {
  name: 'recordHistory',
  source: `local prefix, oldest = ARGV[1], tonumber(ARGV[2])
local old = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', '(' .. oldest)
for _, minute in ipairs(old) do redis.call('DEL', prefix .. minute) end
if #old > 0 then redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', '(' .. oldest) end
if not redis.call('SET', KEYS[2], '1', 'NX', 'EX', ARGV[3]) then return 0 end
local ttl = tonumber(ARGV[4])
local i = 5
while i < #ARGV do
  local minute = ARGV[i]
  if tonumber(minute) >= oldest then
    local key = prefix .. minute
    if ARGV[i + 1] == 'a' then
      if redis.call('HINCRBY', key, ARGV[i + 2], ARGV[i + 3]) == 0 then redis.call('HDEL', key, ARGV[i + 2]) end
    else
      local now = tonumber(redis.call('HGET', key, ARGV[i + 2]))
      if not now or now < tonumber(ARGV[i + 3]) then redis.call('HSET', key, ARGV[i + 2], ARGV[i + 3]) end
    end
    redis.call('ZADD', KEYS[1], minute, minute)
    redis.call('EXPIRE', key, ttl)
  end
  i = i + 4
end
redis.call('EXPIRE', KEYS[1], ttl)
return 1`,
  sha1: '5fdf9079a43e96b58fdbc445708363a493db5c19',
}

/**
 * KEYS: minute index. ARGV: minute key prefix, from minute, to minute (exclusive).
 * Reply: flat pairs {minute, {'@'..field, value, ...}}.
 */
export const readHistoryScript: LuaScript = {
  name: 'readHistory',
  source: `local out = {}
for _, minute in ipairs(redis.call('ZRANGEBYSCORE', KEYS[1], ARGV[2], '(' .. ARGV[3])) do
  local flat = redis.call('HGETALL', ARGV[1] .. minute)
  local fields = {}
  for j = 1, #flat, 2 do
    fields[#fields + 1] = '@' .. flat[j]
    fields[#fields + 1] = tonumber(flat[j + 1])
  end
  out[#out + 1] = tonumber(minute)
  out[#out + 1] = fields
end
return out`,
  sha1: 'b0cf54480201c4c8906a5c874424d0737bea5a74',
}

export interface HistoryKeys {
  minutes: string
  minutePrefix: string
  batch(id: string): string
}

/** The history keys of a room, under its hash tag (`room` is `{prefix}:{{roomId}}`). */
export const historyKeys = (room: string): HistoryKeys => ({
  minutes: `${room}:hm`,
  minutePrefix: `${room}:h:`,
  batch: (id) => `${room}:hb:${id}`,
})

export async function recordHistory(redis: RedisScripting, keys: HistoryKeys, batch: HistoryBatch): Promise<void> {
  if (!validBatch(batch)) throw new TypeError('recordHistory: malformed batch')
  const args = [keys.minutePrefix, String(oldestKeptMinute(batch)), String(HISTORY_DEDUPE_MINUTES * 60), String(batch.retentionMinutes * 60 + 3600)]
  for (const row of batch.rows) {
    for (const field in row.fields) args.push(String(row.minute), isMaxField(field) ? 'm' : 'a', `${row.location}\n${field}`, String(row.fields[field]))
  }
  await runScript(redis, recordHistoryScript, [keys.minutes, keys.batch(batch.id)], args)
}

export async function readHistory(redis: RedisScripting, keys: HistoryKeys, query: HistoryQuery): Promise<HistoryRow[]> {
  const { reply } = await runScript(redis, readHistoryScript, [keys.minutes], [keys.minutePrefix, String(query.fromMinute), String(query.toMinute)])
  const flat = replyArray(readHistoryScript, reply)
  const rows = new Map<string, HistoryRow>()
  for (let i = 0; i + 1 < flat.length; i += 2) {
    const minute = Number(flat[i])
    const fields = flat[i + 1] as unknown[]
    for (let j = 0; j + 1 < fields.length; j += 2) {
      const name = String(fields[j]).slice(1)
      const cut = name.lastIndexOf('\n')
      const location = name.slice(0, cut)
      const key = `${minute}\n${location}`
      let row = rows.get(key)
      if (!row) rows.set(key, (row = { minute, location, fields: {} }))
      row.fields[name.slice(cut + 1)] = Number(fields[j + 1])
    }
  }
  return [...rows.values()]
}
