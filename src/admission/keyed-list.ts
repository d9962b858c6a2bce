/**
 * @module
 * A list of entries with ids (events, bypass rules) in the settings storage, written so that no acknowledged
 * write is lost. Reading the whole list, changing it and writing it back loses writes: two admins adding at
 * once both read `[a]` and write `[a, b]` and `[a, c]`. So:
 *
 * - In one process, every write to a list goes through a promise chain per storage and key: one at a time.
 * - When the storage can list and delete keys (`getKeys` and `removeItem`, as unstorage has), each entry added
 *   is kept under its own key (`<listKey>:<id>` becomes `<itemPrefix>:id-<id>`): workers adding different ids
 *   never touch the same key, so none is lost. The list under `listKey` (the layout before, and the entries
 *   given as options once written down) is still read, and an entry in it is deleted by rewriting it.
 * - Without them, the whole list is kept under `listKey` as before: safe within a process, and across
 *   processes the last writer wins.
 *
 * What remains across workers: checks that span entries (event overlaps, the most entries per room, a
 * duplicate id added on two workers at the same moment) see only what was stored when they ran.
 */
/** The settings storage (./settings.ts `SettingsStorage`, spelled out here: no import cycle), with the two optional methods that allow one key per entry. */
interface KeyedStorage {
  getItem(key: string): Promise<unknown>
  setItem(key: string, value: unknown): Promise<void>
  getKeys?: (base: string) => Promise<string[]>
  removeItem?: (key: string) => Promise<void>
}

/** Write chains: one per storage and key, shared by every room object of this process. */
const chains = new WeakMap<object, Map<string, Promise<unknown>>>()

/** Runs `work` after every earlier write to `key` in `storage` in this process has finished. */
export function serialised<T>(storage: object, key: string, work: () => Promise<T>): Promise<T> {
  let byKey = chains.get(storage)
  if (!byKey) chains.set(storage, (byKey = new Map()))
  const before = byKey.get(key) ?? Promise.resolve()
  const result = before.then(work, work)
  const done = result.then(() => {}, () => {})
  byKey.set(key, done)
  void done.then(() => {
    if (byKey.get(key) === done) byKey.delete(key)
  })
  return result
}

const idOf = (value: unknown): string | undefined => {
  const id = (value as { id?: unknown } | null)?.id
  return typeof id === 'string' ? id : undefined
}

export class KeyedList {
  readonly #storage: KeyedStorage
  readonly #listKey: string
  readonly #itemPrefix: string

  constructor(storage: KeyedStorage, listKey: string, itemPrefix: string) {
    this.#storage = storage
    this.#listKey = listKey
    this.#itemPrefix = itemPrefix
  }

  get #keyed(): boolean {
    return typeof this.#storage.getKeys === 'function' && typeof this.#storage.removeItem === 'function'
  }

  #itemKey(id: string): string {
    return `${this.#itemPrefix}:id-${id}`
  }

  /** Every stored entry, unvalidated (the list's, then one per key); undefined when nothing was ever stored. */
  async read(): Promise<unknown[] | undefined> {
    const list = await this.#storage.getItem(this.#listKey)
    const base = Array.isArray(list) ? (list as unknown[]) : undefined
    if (!this.#keyed) return base
    const prefix = `${this.#itemPrefix}:`
    const keys = (await this.#storage.getKeys!(this.#itemPrefix)).filter((k) => k.startsWith(prefix)).sort()
    if (keys.length === 0) return base
    const items = await Promise.all(keys.map((k) => this.#storage.getItem(k)))
    return [...(base ?? []), ...items.filter((item) => item !== null && item !== undefined)]
  }

  /**
   * Adds `entry` once `check(current entries)` passes (it throws to refuse), all within this process's write
   * chain. `initial` is what the list holds when nothing was ever stored (entries given as options): it is
   * written down first, so a later delete of one of them sticks.
   */
  add(entry: { id: string }, initial: readonly unknown[], check: (current: unknown[]) => void): Promise<void> {
    return serialised(this.#storage, this.#listKey, async () => {
      const stored = await this.read()
      check(stored ?? [...initial])
      if (!this.#keyed) return this.#storage.setItem(this.#listKey, [...(stored ?? initial), entry])
      if (stored === undefined) await this.#storage.setItem(this.#listKey, [...initial])
      await this.#storage.setItem(this.#itemKey(entry.id), entry)
    })
  }

  /** Deletes every stored entry with this id (valid or not); the first one deleted, or undefined when none. */
  remove(id: string, initial: readonly unknown[]): Promise<unknown> {
    return serialised(this.#storage, this.#listKey, async () => {
      const list = await this.#storage.getItem(this.#listKey)
      const base = Array.isArray(list) ? (list as unknown[]) : undefined
      let deleted: unknown = (base ?? initial).find((entry) => idOf(entry) === id)
      if (deleted !== undefined || base === undefined) {
        await this.#storage.setItem(this.#listKey, (base ?? initial).filter((entry) => idOf(entry) !== id))
      }
      if (this.#keyed) {
        const item = await this.#storage.getItem(this.#itemKey(id))
        if (item !== null && item !== undefined) {
          deleted ??= item
          await this.#storage.removeItem!(this.#itemKey(id))
        }
      }
      return deleted
    })
  }
}
