/**
 * The proxy flags issue 19 added: `--compatibility` and `--max-queued-users` (and their environment
 * variables) reach the room's options, and a bad value is a usage error naming the flag.
 */
import { describe, expect, it } from 'vitest'
import { parseFlags, UsageError } from './flags.ts'

describe('--compatibility and --max-queued-users', () => {
  it('set the room options, from flags or the environment', () => {
    const { config } = parseFlags(['--origin', 'http://127.0.0.1:9', '--compatibility', 'cloudflare', '--max-queued-users', '5000'], {})
    expect(config.room).toMatchObject({ compatibility: 'cloudflare', maxQueuedUsers: 5000 })
    const fromEnv = parseFlags(['--origin', 'http://127.0.0.1:9'], { WR_COMPATIBILITY: 'cloudflare', WR_MAX_QUEUED_USERS: '7' })
    expect(fromEnv.config.room).toMatchObject({ compatibility: 'cloudflare', maxQueuedUsers: 7 })
    expect(parseFlags(['--origin', 'http://127.0.0.1:9'], {}).config.room.compatibility).toBeUndefined()
  })

  it('refuse bad values naming the flag', () => {
    expect(() => parseFlags(['--origin', 'http://127.0.0.1:9', '--compatibility', 'akamai'], {})).toThrow(UsageError)
    expect(() => parseFlags(['--origin', 'http://127.0.0.1:9', '--compatibility', 'akamai'], {})).toThrow(/^invalid --compatibility akamai: the compatibility mode must be default or cloudflare$/)
    expect(() => parseFlags(['--origin', 'http://127.0.0.1:9', '--max-queued-users', '0'], {})).toThrow(/--max-queued-users/)
  })
})
