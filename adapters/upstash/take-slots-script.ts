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
 * a re-entry's register. Every key is read once by one MGET; the caller sends each key once, so two requests of the
 * batch sharing a counter or a ticket read and move one slot of the reply (`got`), exactly as sequential calls
 * would see each other's grants. The ticket's answer and a re-entry's register are written at once; the counters
 * (their final values), the Anywhere admissions (`~h`, the total) and the location claims once at the end — the
 * same final state as the calls one by one.
 *
 * KEYS: the room's lost minute, epoch, generation, the counters, the tickets (the M string keys the MGET reads),
 * then the location hashes and re-entry registers. ARGV: the batch's attempt, P (profiles), M, per profile
 * {@link PROFILE_FIELDS} fields (the KEYS indexes of its location counter of minute m, of m − 1, the Anywhere
 * counter of m, of m − 1, its location hash, its register (the hash when not a re-entry); location limit, Anywhere
 * limit, location and Anywhere previous reported ('' for none), minute, recovery threshold ('' never refuses), the
 * worker's epoch ('' for none) and generation, the register's ttl ('' for no re-entry)), then per request its pick:
 * its ticket key's index × {@link PICK} + its profile's number. A profile is what requests of one location and
 * view share, so a crowd's batch usually has one.
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
export const PROFILE_FIELDS = 11
/** Base of the packed KEYS indexes of a profile (a call has fewer keys: take-slots.ts MAX_CALL_REQUESTS). */
export const INDEX_BASE = 8192
/** A request's pick: its ticket key's index × PICK + its profile's number (takeSlots sends at most MAX_CALL_REQUESTS). */
export const PICK = 65_536

// Written to allocate little: Lua's allocations and their collection, not its arithmetic, are what a script
// pays for beyond its Redis calls (callgrind, #16). No closures, no table per profile (its fields are read into
// locals when the profile changes from the request before), state kept in the MGET's own reply (`got`, one slot per
// key: the caller sends each key once), and `W` — the counters' values before the batch, the Anywhere admissions
// and claims per profile — made at the first grant.
const source = `local attempt, P, M = ARGV[1], ARGV[2] + 0, ARGV[3] + 0
local F = 3 + ${PROFILE_FIELDS} * P
local R = #ARGV - F
local got = redis.call('MGET', unpack(KEYS, 1, M))
local out, W, last = {}, false
local lm, lm1, am, am1, hash, register, llimit, alimit, lprev, aprev, minute, threshold, epoch, generation, ttl
for i = 1, R do
  local x = ARGV[F + i] + 0
  local p = x % ${PICK}
  local K = (x - p) / ${PICK}
  local earlier = got[K]
  if earlier then
    out[i] = (string.byte(earlier) == 42 and 2 or 1) + (string.match(earlier, '^%*?([^:]*)') == attempt .. '.' .. i and 0 or 4)
  else
    if p ~= last then
      last = p
      local b = 3 + ${PROFILE_FIELDS} * (p - 1)
      local c, s = ARGV[b + 1] + 0, ARGV[b + 2] + 0
      lm = c % ${INDEX_BASE}; c = (c - lm) / ${INDEX_BASE}; lm1 = c % ${INDEX_BASE}; c = (c - lm1) / ${INDEX_BASE}; am = c % ${INDEX_BASE}; am1 = (c - am) / ${INDEX_BASE}
      local h = s % ${INDEX_BASE}
      hash, register = KEYS[h], KEYS[(s - h) / ${INDEX_BASE}]
      llimit, alimit, lprev, aprev, minute = ARGV[b + 3] + 0, ARGV[b + 4] + 0, ARGV[b + 5], ARGV[b + 6], ARGV[b + 7] + 0
      threshold, epoch, generation, ttl = ARGV[b + 8], ARGV[b + 9], ARGV[b + 10], ARGV[b + 11]
    end
    if epoch ~= '' then
      local e, g = got[2], got[3]
      local same = e == epoch or e and string.sub(e, (string.find(e, ':', 1, true) or 0) + 1) == epoch
      if not (same and (g == generation or (g or 0) + 0 >= generation + 0)) and (got[1] or -1) + 0 < minute then
        local advanced = same and generation + 1 or (g or 0) + 1
        redis.call('HINCRBY', hash, 'R' .. minute, 1)
        redis.call('SET', KEYS[1], minute)
        redis.call('SET', KEYS[3], advanced)
        got[1], got[3] = minute, advanced
        if not W then W = {} end
        W[-p] = true
      end
    end
    if got[1] and threshold ~= '' and got[1] + 0 >= threshold + 0 then
      out[i] = -1
    else
      local limit, seq, counter, answer = llimit, 0
      if limit > 0 then
        seq = (got[lm] or 0) + 0
        local over = lprev ~= '' and (got[lm1] or 0) - lprev or 0
        if over > 0 then limit = limit - over end
        if seq < limit then counter, answer = lm, attempt .. '.' .. i end
      end
      if not counter then
        limit, seq = alimit, (got[am] or 0) + 0
        local over = seq < limit and aprev ~= '' and (got[am1] or 0) - aprev or 0
        if over > 0 then limit = limit - over end
        if seq < limit then counter, answer = am, '*' .. attempt .. '.' .. i end
      end
      if not counter then
        out[i] = 0
      else
        redis.call('SETEX', KEYS[K], '${TOKEN_TTL_SECONDS}', answer)
        got[K] = answer
        if ttl ~= '' then
          local held = tonumber(redis.call('GET', register))
          if not held or held < minute then redis.call('SETEX', register, ttl, minute) end
        end
        if not W then W = {} end
        if W[counter] == nil then W[counter] = got[counter] end
        got[counter] = seq + 1
        if counter == lm then
          if seq == 0 then W[-p] = true end
          out[i] = 1 + 8 * seq
        else
          W[-1000 - p] = (W[-1000 - p] or 0) + 1
          out[i] = 2 + 8 * seq
        end
      end
    end
  end
end
if not W then return out end
for k = 4, M do
  local before = W[k]
  if before ~= nil then
    if (before or 0) + 0 > 0 then redis.call('INCRBY', KEYS[k], got[k] - before) else redis.call('SETEX', KEYS[k], '${COUNTER_TTL_SECONDS}', got[k]) end
  end
end
for p = 1, P do
  local b = 3 + ${PROFILE_FIELDS} * (p - 1)
  local h = (ARGV[b + 2] + 0) % ${INDEX_BASE}
  local hash, minute, admitted = KEYS[h], ARGV[b + 7], W[-1000 - p]
  if admitted and redis.call('HINCRBY', hash, '~h' .. minute, admitted) == admitted then W[-p] = true end
  if W[-p] then
    if redis.call('TTL', hash) < 0 then redis.call('EXPIRE', hash, '${GRANT_STATE_TTL_SECONDS}') end
    local at = string.find(hash, '}', 1, true)
    local index = string.sub(hash, 1, at) .. ':locations'
    if redis.call('ZADD', index, 'GT', minute * 60000, string.sub(hash, at + 4)) == 1 and redis.call('TTL', index) < 0 then
      redis.call('EXPIRE', index, '${GRANT_STATE_TTL_SECONDS}')
    end
  end
end
return out
`

/** The batch decision script; `sha1` is checked by scripts.test.ts (after an edit, put the hash it prints here). */
export const takeSlotScript: LuaScript = {
  name: 'takeSlot',
  source,
  sha1: 'd13875cb16cc1aad879bbb177973d7c466661ca4',
}
