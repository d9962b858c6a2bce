/**
 * `--challenge`, `--challenge-fail`, `--challenge-when` (issue 17): parsed into the room's `challenge` option,
 * from flags or environment variables, with usage errors naming the flag; and a proxy started with them
 * holds a cookieless client in the infinite queue (the origin never sees it) and admits one that answers.
 */
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { describe, expect, it } from 'vitest'
import { parseChallenge, solveChallenge } from '../src/challenge/signed-challenge.ts'
import { CHALLENGE_HEADER } from '../src/challenge/provider.ts'
import { parseFlags, UsageError } from './flags.ts'
import { describeRoom, startProxy } from './proxy-command.ts'

const SECRET = 'cli-challenge-secret-0123456789-abcdef'

describe('challenge flags', () => {
  it('reads proof-of-work with or without a difficulty, the fail mode and when, from flags or the environment', async () => {
    const { config } = parseFlags(['--challenge', 'proof-of-work:12', '--challenge-fail', 'log', '--challenge-when', 'always'], {})
    expect(config.room.challenge).toMatchObject({ onFail: 'log', when: 'always' })
    expect(config.room.challenge?.provider.name).toBe('proof-of-work')
    const env = { roomId: 'r', now: 0, waitingUsers: 0, key: new Uint8Array(32), claimOnce: async () => true }
    const issued = await config.room.challenge!.provider.issue!(env)
    expect(parseChallenge(String(issued.challenge))?.difficulty).toBe(12)
    const fromEnv = parseFlags([], { WR_CHALLENGE: 'proof-of-work', WR_CHALLENGE_FAIL: 'infinite-queue' }).config.room.challenge!
    expect(fromEnv.onFail).toBe('infinite-queue')
    expect((await fromEnv.provider.issue!(env)).difficulty).toBe(16)
    expect(parseFlags(['--challenge', 'none'], {}).config.room.challenge).toBeUndefined()
    expect(parseFlags([], {}).config.room.challenge).toBeUndefined()
    expect(describeRoom(parseFlags(['--challenge', 'proof-of-work'], {}).config)).toContain('challenge proof-of-work (queueing, on fail infinite-queue)')
  })

  it('refuses bad values naming the flag and what it allows', () => {
    const refuse = (argv: string[], env: Record<string, string> = {}) => () => parseFlags(argv, env)
    expect(refuse(['--challenge', 'captcha'])).toThrow(UsageError)
    expect(refuse(['--challenge', 'captcha'])).toThrow(/^invalid --challenge captcha: the challenge must be proof-of-work, proof-of-work:<difficulty 1-24> or none$/)
    expect(refuse(['--challenge', 'proof-of-work:40'])).toThrow(/invalid --challenge proof-of-work:40: the difficulty must be a whole number from 1 to 24/)
    expect(refuse(['--challenge', 'proof-of-work:0'])).toThrow(/difficulty must be a whole number from 1 to 24/)
    expect(refuse(['--challenge', 'proof-of-work', '--challenge-fail', 'ban'])).toThrow(/^invalid --challenge-fail ban: .* must be infinite-queue or log$/)
    expect(refuse(['--challenge', 'proof-of-work'], { WR_CHALLENGE_WHEN: 'sometimes' })).toThrow(/^invalid WR_CHALLENGE_WHEN=sometimes: .* must be queueing or always$/)
    expect(refuse(['--challenge-fail', 'log'])).toThrow(/--challenge-fail needs --challenge/)
  })

  it('a proxy with --challenge proof-of-work:8 --challenge-when always keeps skipping clients from the origin', { timeout: 20_000 }, async () => {
    let originHits = 0
    const origin = createServer((_req, res) => {
      originHits++
      res.end('origin page')
    })
    await new Promise<void>((resolve) => origin.listen(0, '127.0.0.1', resolve))
    const originUrl = `http://127.0.0.1:${(origin.address() as AddressInfo).port}`
    const { config } = parseFlags(['--origin', originUrl, '--port', '0', '--secret', SECRET, '--json', '--challenge', 'proof-of-work:8', '--challenge-when', 'always'], {})
    const proxy = await startProxy(config)
    try {
      for (let i = 0; i < 30; i++) {
        const response = await fetch(proxy.url)
        expect(await response.text()).toContain('id="wr-challenge"')
        expect(response.headers.get('set-cookie')).toBeNull()
      }
      expect(originHits).toBe(0)
      const held = (await (await fetch(proxy.url, { headers: { accept: 'application/json' } })).json()) as { waitingRoom: { challenge: { challenge: string } } }
      const answered = await fetch(proxy.url, { headers: { [CHALLENGE_HEADER]: solveChallenge(held.waitingRoom.challenge.challenge) } })
      expect(await answered.text()).toBe('origin page')
      expect(originHits).toBe(1)
    } finally {
      await proxy.close()
      await new Promise<void>((resolve) => origin.close(() => resolve()))
    }
  })
})
