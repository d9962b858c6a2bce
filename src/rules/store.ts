/**
 * @module
 * The room's runtime bypass rules: kept in the settings storage under `waiting-room:<roomId>:rules` (where the
 * admin API writes them), read again in the background at the settings' refresh interval — so a rule added on
 * one worker is applied by every worker within one refresh — compiled once per load, with a hit counter each.
 */
import type { Context } from 'hono'
import type { SettingsStorage } from '../admission/settings.ts'
import { WaitingRoomError } from '../errors.ts'
import { waitUntilOf } from '../room/execution.ts'
import { compileCondition, type RequestFacts, type Truth } from './evaluate.ts'
import { factsOf, type FactSources } from './facts.ts'
import { MAX_RULES, rulesSchema, type BypassRule } from './language.ts'

interface CompiledRule {
  id: string
  test: (facts: RequestFacts) => Truth
}

const TRUE: Truth = 1

export class RuleSource {
  readonly #key: string
  readonly #storage: SettingsStorage
  readonly #refreshMs: number
  readonly #sources: FactSources
  #rules: BypassRule[] = []
  #compiled: CompiledRule[] = []
  #loading: Promise<void> | undefined
  #lastLoadAt = Number.NEGATIVE_INFINITY
  #loaded = false
  /** Requests each rule let through on this worker, by rule id (kept after a rule is deleted: counters only grow). */
  readonly hits: Map<string, number> = new Map()

  constructor(roomId: string, storage: SettingsStorage, refreshMs: number, sources: FactSources) {
    this.#key = `waiting-room:${roomId}:rules`
    this.#storage = storage
    this.#refreshMs = refreshMs
    this.#sources = sources
  }

  /** The id of the first enabled rule that surely matches `c`, or undefined; awaits only the very first load. */
  matchOf(c: Context, now: number): string | undefined | Promise<string | undefined> {
    if (!this.#loaded) return this.load(now).then(() => this.#match(c), () => this.#match(c))
    if (!this.#loading && now - this.#lastLoadAt >= this.#refreshMs) {
      const loading = this.load(now).catch(() => {}) // a storage outage keeps the last known rules
      waitUntilOf(c)?.(loading) // looked up only when a reload starts
    }
    return this.#compiled.length === 0 ? undefined : this.#match(c)
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

  /** Reads the rules from storage (a stored value that fails validation leaves the last good ones in force). */
  load(now: number): Promise<void> {
    this.#loading ??= (async () => {
      try {
        const stored = await this.#storage.getItem(this.#key)
        const parsed = rulesSchema.safeParse(stored ?? [])
        if (parsed.success) this.#use(parsed.data)
      } finally {
        this.#loaded = true
        this.#lastLoadAt = now
        this.#loading = undefined
      }
    })()
    return this.#loading
  }

  rules(): BypassRule[] {
    return this.#rules.map((rule) => ({ ...rule }))
  }

  /** Adds a rule (validated by the caller); throws a conflict when its id is taken or the room holds the most rules. */
  async add(rule: BypassRule, now: number): Promise<void> {
    await this.load(now)
    if (this.#rules.some((r) => r.id === rule.id)) throw new WaitingRoomError('ERR_WR_CONFLICT', `a rule with the id "${rule.id}" already exists: delete it first`)
    if (this.#rules.length >= MAX_RULES) throw new WaitingRoomError('ERR_WR_CONFLICT', `at most ${MAX_RULES} rules per room`)
    await this.#save([...this.#rules, rule], now)
  }

  /** Deletes a rule; false when there is none with that id. */
  async remove(id: string, now: number): Promise<BypassRule | undefined> {
    await this.load(now)
    const rule = this.#rules.find((r) => r.id === id)
    if (rule) await this.#save(this.#rules.filter((r) => r !== rule), now)
    return rule
  }

  async #save(rules: BypassRule[], now: number): Promise<void> {
    await this.#storage.setItem(this.#key, rules)
    this.#use(rules)
    this.#lastLoadAt = now
  }

  #use(rules: BypassRule[]): void {
    this.#rules = rules
    this.#compiled = rules.filter((rule) => rule.enabled !== false).map((rule) => ({ id: rule.id, test: compileCondition(rule.when) }))
  }
}
