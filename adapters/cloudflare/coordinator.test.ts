/**
 * The factory's build-time behaviour, without workerd: it checks its bindings naming the fix, and it is
 * cheap per request because it returns the coordinator it built for the same binding and options.
 */
import { describe, expect, it } from 'vitest'
import { WaitingRoomError } from '../../src/errors.ts'
import { durableObjectCoordinator } from './coordinator.ts'
import type { DurableObjectNamespaceLike } from './protocol.ts'

const namespace = (): DurableObjectNamespaceLike => ({ idFromName: (name) => ({ toString: () => name }), get: () => ({}) })

describe('durableObjectCoordinator', () => {
  it('builds one coordinator per binding and options, so a call per request costs a lookup', () => {
    const counters = namespace()
    const global = namespace()
    const first = durableObjectCoordinator({ counters, global })
    expect(durableObjectCoordinator({ counters, global })).toBe(first)
    expect(durableObjectCoordinator({ counters, global, bindingNames: { global: 'WR_GLOBAL' } })).not.toBe(first)
    expect(durableObjectCoordinator({ counters: namespace(), global })).not.toBe(first)
    expect(first.name).toBe('cloudflare')
  })

  it('rejects a missing binding, naming the option and the wrangler.jsonc fix', () => {
    const build = (options: object) => () => durableObjectCoordinator(options as never)
    expect(build({ global: namespace() })).toThrow(WaitingRoomError)
    expect(build({ global: namespace() })).toThrow(/counters: expected a Durable Object namespace binding such as env.WR_COUNTER .*wrangler.jsonc/)
    expect(build({ counters: namespace(), global: undefined })).toThrow(/global: .*WaitingRoomGlobal/)
    expect(build({ counters: namespace(), global: namespace(), bindingNames: { counters: 'no spaces' } })).toThrow(/bindingNames.counters/)
    expect(build({ counters: namespace(), global: namespace(), attempts: 0 })).toThrow(/attempts: expected a number from 1 to 10/)
  })
})
