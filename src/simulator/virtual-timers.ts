/**
 * @module
 * Timers in simulated time. The core reads time from its `clock` option but schedules some background
 * work with the global `setTimeout` (the worker link's trailing report after a sync, the coordinator
 * timeout). In a run where a simulated minute takes a fraction of a real second, a real timer would fire
 * at an arbitrary simulated moment and make the run irreproducible. While the simulator's own requests
 * (and due timers) run, `setTimeout`/`clearTimeout` are swapped for these, which fire at simulated times
 * in a fixed order; outside those windows the real ones are back, so nothing else in the process is affected.
 * `Date.now` is swapped in the same windows: the worker link times its syncs with it (a sync slower than
 * 250 ms backs its report interval off), and with the real clock a garbage-collection pause of a loaded
 * machine changed how often a simulated worker reported, so two runs of one seed could differ. In simulated
 * time a sync of the in-process coordinator takes no time, as it should. `performance.now` likewise: the worker
 * link takes a report in flight longer than its timeout by it for a hanging store, and a pause of a loaded machine
 * past that timeout changed a run's decisions (the golden's planet case differed at load 34).
 *
 * Pending timers sit in a binary heap ordered by (time, creation): with a thousand workers each holding a
 * trailing-report timer, finding the next one by scanning them all made every step cost O(timers²).
 */

interface Timer {
  at: number
  id: number
  callback: (...args: unknown[]) => void
  args: unknown[]
}

type SetTimeout = typeof globalThis.setTimeout
type ClearTimeout = typeof globalThis.clearTimeout

/** Microtask turns given to work a fired timer starts, so it runs while the virtual timers are installed. */
const MICROTASK_TURNS = 50

/**
 * One settled promise awaited for every turn: `await` of a settled native promise takes one turn, as
 * `await Promise.resolve()` did, without making a promise per turn (50 per fired timer were a fifteenth of
 * planet's allocation, issue 15).
 */
const SETTLED = Promise.resolve()

const earlier = (a: Timer, b: Timer): boolean => a.at < b.at || (a.at === b.at && a.id < b.id)

export class VirtualTimers {
  readonly #now: () => number
  /** Live timers by id; a cleared timer leaves the heap lazily (it is skipped when it reaches the top). */
  readonly #timers = new Map<number, Timer>()
  readonly #heap: Timer[] = []
  #nextId = 1
  #installed = 0
  #real: { setTimeout: SetTimeout; clearTimeout: ClearTimeout; now: () => number; performanceNow: () => number } | undefined

  /** `now` is the simulated clock (ms). */
  constructor(now: () => number) {
    this.#now = now
  }

  /** Timers waiting to fire. */
  get pending(): number {
    return this.#timers.size
  }

  /** Runs `work` with the global timers swapped for virtual ones (re-entrant). */
  async within<T>(work: () => Promise<T>): Promise<T> {
    this.#install()
    try {
      return await work()
    } finally {
      this.#uninstall()
    }
  }

  /** Fires every timer due by now, earliest first (ties in creation order), then lets their work run. */
  async fireDue(): Promise<void> {
    if (this.#timers.size === 0) return
    await this.within(async () => {
      for (;;) {
        const due = this.#next()
        if (!due || due.at > this.#now()) break
        this.#pop()
        this.#timers.delete(due.id)
        due.callback(...due.args)
        for (let i = 0; i < MICROTASK_TURNS; i++) await SETTLED
      }
    })
  }

  /** The earliest live timer, dropping cleared ones from the top of the heap. */
  #next(): Timer | undefined {
    while (this.#heap.length > 0 && !this.#timers.has(this.#heap[0]!.id)) this.#pop()
    return this.#heap[0]
  }

  #push(timer: Timer): void {
    const heap = this.#heap
    let i = heap.push(timer) - 1
    while (i > 0) {
      const parent = (i - 1) >> 1
      if (!earlier(timer, heap[parent]!)) break
      heap[i] = heap[parent]!
      i = parent
    }
    heap[i] = timer
  }

  #pop(): void {
    const heap = this.#heap
    const last = heap.pop()!
    if (heap.length === 0) return
    let i = 0
    for (;;) {
      const left = 2 * i + 1
      if (left >= heap.length) break
      const child = left + 1 < heap.length && earlier(heap[left + 1]!, heap[left]!) ? left + 1 : left
      if (!earlier(heap[child]!, last)) break
      heap[i] = heap[child]!
      i = child
    }
    heap[i] = last
  }

  #install(): void {
    if (this.#installed++ > 0) return
    const real = { setTimeout: globalThis.setTimeout, clearTimeout: globalThis.clearTimeout, now: Date.now, performanceNow: performance.now }
    this.#real = real
    const virtualSet = (callback: (...args: unknown[]) => void, ms?: number, ...args: unknown[]) => {
      const id = this.#nextId++
      const timer: Timer = { at: this.#now() + Math.max(0, ms ?? 0), id, callback, args }
      this.#timers.set(id, timer)
      this.#push(timer)
      return id
    }
    const virtualClear = (id: unknown) => {
      // Ids of ours are numbers; anything else was made by the real setTimeout before the swap.
      if (typeof id === 'number' && this.#timers.delete(id)) return
      real.clearTimeout(id as Parameters<ClearTimeout>[0])
    }
    globalThis.setTimeout = virtualSet as unknown as SetTimeout
    globalThis.clearTimeout = virtualClear as ClearTimeout
    Date.now = this.#now
    performance.now = this.#now
  }

  #uninstall(): void {
    if (--this.#installed > 0 || !this.#real) return
    globalThis.setTimeout = this.#real.setTimeout
    globalThis.clearTimeout = this.#real.clearTimeout
    Date.now = this.#real.now
    performance.now = this.#real.performanceNow
    this.#real = undefined
  }
}
