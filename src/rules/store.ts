/**
 * @module
 * The room's runtime bypass rules: kept in the settings storage under `waiting-room:<roomId>:rules` (where the
 * admin API writes them), read again in the background at the settings' refresh interval — so a rule added on
 * one worker is applied by every worker within one refresh — compiled once per load, with a hit counter each.
 */
import type { Context } from 'hono'
import type { SettingsStorage } from '../admission/settings.ts'
import { WaitingRoomError } from '../errors.ts'
import { KeyedList } from '../admission/keyed-list.ts'
import { waitUntilOf } from '../room/execution.ts'
import { settleWithin } from '../coordination/timeout.ts'
import { compileCondition, type RequestFacts, type Truth } from './evaluate.ts'
import { factsOf, type FactSources } from './facts.ts'
import { conditionSize, MAX_CONDITIONS_PER_ROOM, MAX_RULES, ruleSchema, type BypassRule } from './language.ts'

const sizeOf = (rule: BypassRule): number => conditionSize(rule.when, Number.POSITIVE_INFINITY).count

interface CompiledRule {
  id: string
  test: (facts: RequestFacts) => Truth
}

const TRUE: Truth = 1

export class RuleSource {
  readonly #roomId: string
  readonly #stored: KeyedList
  readonly #refreshMs: number
  readonly #sources: FactSources
  #rules: BypassRule[] = []
  #compiled: CompiledRule[] = []
  #loading: Promise<void> | undefined
  #lastLoadAt = Number.NEGATIVE_INFINITY
  #loaded = false
  /** Requests each rule let through on this worker, by rule id (kept after a rule is deleted: counters only grow). */
  readonly hits: Map<string, number> = new Map()

  readonly #timeoutMs: number

  constructor(roomId: string, storage: SettingsStorage, refreshMs: number, sources: FactSources, timeoutMs = 1000) {
    this.#timeoutMs = timeoutMs
    this.#roomId = roomId
    // `waiting-room:<roomId>:rules` (a list) and `…:rule:id-<id>` (one rule each): see ../admission/keyed-list.ts
    this.#stored = new KeyedList(storage, `waiting-room:${roomId}:rules`, `waiting-room:${roomId}:rule`)
    this.#refreshMs = refreshMs
    this.#sources = sources
  }

  /**
   * The id of the first enabled rule that surely matches `c`, or undefined. A request that finds the rules
   * older than the refresh interval waits for the reload (at most `timeoutMs`; then the last known rules
   * apply), so a worker back from idle never judges on rules older than one refresh.
   */
  matchOf(c: Context, now: number): string | undefined | Promise<string | undefined> {
    if (!this.#loaded) return this.load(now).then(() => this.#match(c), () => this.#match(c))
    if (!this.#loading && now - this.#lastLoadAt >= this.#refreshMs) {
      const loading = this.load(now).catch(() => {}) // a storage outage keeps the last known rules
      waitUntilOf(c)?.(loading) // looked up only when a reload starts
    }
    if (this.#loading) return settleWithin(this.#loading, this.#timeoutMs).then(() => this.#match(c))
    return this.#compiled.length === 0 ? undefined : this.#match(c)
  }

  /** True when {@link matchOf} would answer undefined at `now` without loading, waiting or reading the request: no rules, none due. */
  noneNow(now: number): boolean {
    return this.#loaded && !this.#loading && now - this.#lastLoadAt < this.#refreshMs && this.#compiled.length === 0
  }

  #match(c: Context): string | undefined {
    if (this.#compiled.length === 0) return undefined
    const facts = factsOf(c, this.#sources)
    for (const rule of this.#compiled) {
      if (rule.test(facts) === TRUE) {
        this.hits.set(rule.id, (this.hits.get(rule.id) ?? 0) + 1)
        return rule.id
      }
    }
    return undefined
  }

  /** Reads the rules from storage; a stored rule that fails validation is skipped with a warning, the others apply. */
  load(now: number): Promise<void> {
    this.#loading ??= (async () => {
      try {
        this.#use(this.#valid((await this.#stored.read()) ?? []))
      } finally {
        this.#loaded = true
        this.#lastLoadAt = now
        this.#loading = undefined
      }
    })()
    return this.#loading
  }

  #valid(stored: unknown[]): BypassRule[] {
    const rules: BypassRule[] = []
    let conditions = 0
    for (const entry of stored) {
      const parsed = ruleSchema.safeParse(entry)
      const problem = !parsed.success
        ? parsed.error.issues[0]?.message
        : rules.some((r) => r.id === parsed.data.id)
          ? 'repeats an id'
          : rules.length >= MAX_RULES
            ? `more than ${MAX_RULES} rules`
            : conditions + sizeOf(parsed.data) > MAX_CONDITIONS_PER_ROOM
              ? `more than ${MAX_CONDITIONS_PER_ROOM} conditions in the room's rules`
              : undefined
      if (problem === undefined && parsed.success) {
        rules.push(parsed.data)
        conditions += sizeOf(parsed.data)
      }
      else console.warn(`[hono-waiting-room] room "${this.#roomId}": skipping a stored rule (${(entry as { id?: unknown } | null)?.id}): ${problem}`)
    }
    return rules
  }

  rules(): BypassRule[] {
    return this.#rules.map((rule) => ({ ...rule }))
  }

  /** Adds a rule (validated by the caller); throws a conflict when its id is taken or the room holds the most rules. */
  async add(rule: BypassRule, now: number): Promise<void> {
    await this.#stored.add(rule, [], (current) => {
      const rules = this.#valid(current)
      if (rules.some((r) => r.id === rule.id)) throw new WaitingRoomError('ERR_WR_CONFLICT', `a rule with the id "${rule.id}" already exists: delete it first`)
      if (rules.length >= MAX_RULES) throw new WaitingRoomError('ERR_WR_CONFLICT', `at most ${MAX_RULES} rules per room`)
      const total = rules.reduce((sum, r) => sum + sizeOf(r), sizeOf(rule))
      if (total > MAX_CONDITIONS_PER_ROOM) {
        throw new WaitingRoomError('ERR_WR_OPTIONS', `invalid option when: the room's rules would hold ${total} conditions, at most ${MAX_CONDITIONS_PER_ROOM} (delete or merge rules)`)
      }
    })
    await this.#reload(now)
  }

  /** Deletes the stored rule with this id (valid or not); undefined when there is none. */
  async remove(id: string, now: number): Promise<unknown> {
    const deleted = await this.#stored.remove(id, [])
    await this.#reload(now)
    return deleted
  }

  /** A load that starts after the caller's write (one already under way may have read before it). */
  async #reload(now: number): Promise<void> {
    await this.#loading?.catch(() => {})
    await this.load(now)
  }

  #use(rules: BypassRule[]): void {
    this.#rules = rules
    this.#compiled = rules.filter((rule) => rule.enabled !== false).map((rule) => ({ id: rule.id, test: compileCondition(rule.when) }))
  }
}
