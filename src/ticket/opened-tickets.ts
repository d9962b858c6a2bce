/**
 * @module
 * The tickets a worker has opened, by their exact cookie text, so a returning user costs a lookup and no
 * cryptography. An admitted user's every request passes here, so the lookup is kept to a few hundred ns:
 *
 * - keyed by a number made from the cookie's last characters (its authentication tag: unpredictable
 *   without the key) rather than by the cookie: a Map keyed by the text hashes all ~250 characters of a
 *   string that is new on every request. A hit is confirmed by comparing the whole text, so two cookies
 *   sharing a key only cost a miss (one open) — never the other's ticket.
 * - two generations of up to `size / 2` entries: when the newer is full it becomes the older and the older
 *   is dropped. Evicting one oldest entry per insert instead (`keys().next()` then `delete`) costs
 *   O(deleted entries) in V8's ordered hash tables: ~50 µs per insert once 20,000 were remembered.
 */

interface Entry<T> {
  cookie: string
  value: T
}

/** Characters of the cookie's end the key is made from (12 of the tag's 22: 72 bits). */
const KEY_CHARS = 12

function keyOf(cookie: string): number {
  let key = 0
  for (let i = Math.max(0, cookie.length - KEY_CHARS); i < cookie.length; i++) key = (Math.imul(key, 31) + cookie.charCodeAt(i)) | 0
  return key
}

export class OpenedTickets<T> {
  readonly #half: number
  #recent = new Map<number, Entry<T>>()
  #older = new Map<number, Entry<T>>()

  /** Remembers up to `size` cookies (at least `size / 2`, the most recently used). */
  constructor(size: number) {
    this.#half = Math.max(1, Math.floor(size / 2))
  }

  get(cookie: string): T | undefined {
    const key = keyOf(cookie)
    const recent = this.#recent.get(key)
    if (recent !== undefined) return recent.cookie === cookie ? recent.value : undefined
    const older = this.#older.get(key)
    if (older === undefined || older.cookie !== cookie) return undefined
    this.#put(key, older) // still in use: keep it through the next turnover
    return older.value
  }

  remember(cookie: string, value: T): void {
    this.#put(keyOf(cookie), { cookie, value })
  }

  #put(key: number, entry: Entry<T>): void {
    if (this.#recent.size >= this.#half) {
      this.#older = this.#recent
      this.#recent = new Map()
    }
    this.#recent.set(key, entry)
  }
}
