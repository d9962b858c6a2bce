/**
 * @module
 * A Deno KV wrapper for tests: counts commits and failed checks, and can fail a chosen commit as if the
 * connection dropped (the commit does not happen). Typed structurally (no Deno types): Node's tsc checks it.
 */
import type { KvLike } from '../index.ts'

export function watched(kv: KvLike, failCommit?: number) {
  const stats = { commits: 0, conflicts: 0 }
  const wrapped: KvLike = {
    getMany: (keys, options) => kv.getMany(keys, options),
    list: (selector, options) => kv.list(selector, options),
    atomic() {
      const op = kv.atomic()
      const proxy = new Proxy(op, {
        get(target, name) {
          if (name === 'commit') {
            return async () => {
              if (++stats.commits === failCommit) throw new Error('connection reset')
              const result = await target.commit()
              if (!result.ok) stats.conflicts++
              return result
            }
          }
          const value = Reflect.get(target, name) as unknown
          return typeof value === 'function' ? (...args: unknown[]) => (value.apply(target, args), proxy) : value
        },
      })
      return proxy as unknown as ReturnType<KvLike['atomic']>
    },
  }
  return { kv: wrapped, stats }
}
