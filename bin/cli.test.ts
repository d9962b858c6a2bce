/// <reference types="node" />
/**
 * The CLI in-process: flag and environment parsing, help, usage errors (exit 2, naming the field and
 * flag), and the lazily loaded modules' "not available" errors.
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { Hono } from 'hono'
import { main } from './cli.ts'
import { listen } from './listen.ts'
import { FLAGS, parseFlags, UsageError } from './flags.ts'
import { MissingModuleError } from './lazy-import.ts'
import { loadStoreCoordinator } from './store.ts'
import { loadRedisCoordinator, redactUrl } from './redis-store.ts'
import { describeRoom, startProxy } from './proxy-command.ts'
import { createClient } from 'redis'
import { runSimulateCommand } from './simulate-command.ts'

function capture() {
  const out: string[] = []
  const err: string[] = []
  return { io: { out: (text: string) => out.push(text), err: (text: string) => err.push(text) }, out, err }
}

describe('parseFlags', () => {
  it('reads flags, falls back to environment variables, and maps them to room options', () => {
    const { config } = parseFlags(
      ['--origin', 'http://127.0.0.1:8080', '--total-active-users', '50', '--json', '--status-code', '429'],
      { WR_NEW_USERS_PER_MINUTE: '7', WR_PORT: '9000', WAITING_ROOM_SECRET: 'x'.repeat(32), WR_QUEUEING_METHOD: 'random' },
    )
    expect(config).toEqual({
      origin: 'http://127.0.0.1:8080',
      port: 9000,
      host: '127.0.0.1',
      store: undefined,
      room: {
        totalActiveUsers: 50,
        newUsersPerMinute: 7,
        queueingMethod: 'random',
        secret: 'x'.repeat(32),
        jsonResponseEnabled: true,
        queueingStatusCode: 429,
      },
    })
  })

  it('lets a flag win over its environment variable, and WR_SECRET over WAITING_ROOM_SECRET', () => {
    const { config } = parseFlags(['--port', '1234'], { WR_PORT: '9000', PORT: '80', WR_SECRET: 'a'.repeat(32), WAITING_ROOM_SECRET: 'b'.repeat(32) })
    expect(config.port).toBe(1234)
    expect(config.room.secret).toBe('a'.repeat(32))
    expect(parseFlags([], { PORT: '3000' }).config.port).toBe(3000)
    expect(parseFlags([], {}).config.port).toBe(8787)
  })

  it('uses the command defaults below flags and environment', () => {
    const { config } = parseFlags(['--new-users-per-minute', '3'], { WR_SESSION_DURATION: '2' }, { 'total-active-users': 1, 'new-users-per-minute': 1, 'session-duration': 1 })
    expect(config.room).toEqual({ totalActiveUsers: 1, newUsersPerMinute: 3, sessionDurationMinutes: 2 })
  })

  it.each([
    [['--total-active-users', '0'], {}, /^invalid --total-active-users 0: users allowed on the site at once must be a whole number of users from 1 to 10000000$/],
    [['--session-duration', '31'], {}, /^invalid --session-duration 31: minutes a user stays active after their last request must be a whole number of minutes from 1 to 30$/],
    [['--session-duration', '2.5'], {}, /^invalid --session-duration 2\.5: minutes a user .* must be a whole number of minutes from 1 to 30$/],
    [['--queueing-method', 'lifo'], {}, /^invalid --queueing-method lifo: the queueing method must be fifo, random, passthrough or reject$/],
    [[], { WR_COMPATIBILITY: 'aws' }, /^invalid WR_COMPATIBILITY=aws: the compatibility mode must be default or cloudflare$/],
    [['--challenge', 'proof-of-work', '--challenge-fail', 'drop'], {}, /^invalid --challenge-fail drop: .* must be infinite-queue or log$/],
    [['--room-id', 'a b'], {}, /^invalid --room-id "a b": the room id must be 1–64 letters, digits, _ \. or -$/],
    [['--store', ''], {}, /^--store is empty: it needs a value \(SQLite file/],
    [['--origin', ' '], {}, /^--origin is empty: it needs a value/],
    [['--status-code', '404'], {}, /^invalid --status-code 404: status of the queue page must be 200, 202 or 429$/],
    [[], { WR_REFRESH_INTERVAL: 'soon' }, /^invalid WR_REFRESH_INTERVAL=soon: seconds between a queued user's check-ins must be a whole number of seconds from 5 to 300$/],
    [[], { WR_SECRET: 'short' }, /^invalid WR_SECRET \(the value is not shown\): the ticket key must be at least 32 characters$/],
    [['--json=maybe'], {}, /Option '--json' does not take an argument/],
    [[], { WR_JSON: 'maybe' }, /^invalid WR_JSON=maybe: expected true or false$/],
    [['--port', '70000'], {}, /^invalid --port 70000: port to listen on, 0 for any free port must be a whole number from 0 to 65535$/],
    [['--port', '-1'], {}, /^invalid --port -1: port to listen on/],
    [['--nope'], {}, /Unknown option '--nope'/],
    [['--total-active-users', '-1'], {}, /^invalid --total-active-users -1: users allowed on the site at once must be a whole number of users from 1/],
    [['--total-active-users', '-5', '--port', '0'], {}, /^invalid --total-active-users -5: /],
    [['--origin', '--port', '0'], {}, /^--origin needs a value \(base URL of the site behind the room\), but --port follows it$/],
    [['extra'], {}, /Unexpected argument 'extra'/],
    [['--store', 'room.db', '--redis', 'redis://127.0.0.1:6379'], {}, /--store and --redis cannot be used together/],
    [['--redis', 'redis://127.0.0.1:6379'], { WR_STORE: 'room.db' }, /WR_STORE and --redis cannot be used together/],
    [['--store', 'room.db'], { WR_REDIS_URL: 'redis://127.0.0.1:6379' }, /--store and WR_REDIS_URL cannot be used together/],
    [['--redis', 'http://127.0.0.1:6379'], {}, /invalid --redis: expected a redis:\/\/ or rediss:\/\/ URL/],
    [[], { WR_REDIS_URL: '127.0.0.1:6379' }, /invalid WR_REDIS_URL: expected a redis:\/\/ or rediss:\/\/ URL/],
    [['--trust-proxy', '-1'], {}, /^invalid --trust-proxy -1: expected a whole number of proxies in front, 0 to 32, got -1$/],
    [['--trust-proxy', '1.5'], {}, /^invalid --trust-proxy 1\.5: expected a whole number of proxies/],
    [['--trust-proxy', '10.0.0.0/33'], {}, /^invalid --trust-proxy 10\.0\.0\.0\/33: "10\.0\.0\.0\/33" has an invalid prefix length: expected \/0 to \/32$/],
    [[], { WR_TRUST_PROXY: '10.0.0.1/8,::1' }, /^invalid WR_TRUST_PROXY=10\.0\.0\.1\/8,::1: .*did you mean 10\.0\.0\.0\/8\?$/],
    [['--public-host', 'https://shop.example'], {}, /^invalid --public-host https:\/\/shop\.example: "https:\/\/shop\.example" is not a host name/],
    [['--origin-commands', 'logout'], {}, /^invalid --origin-commands logout: the origin commands the room obeys are revoke or none; logout is not one$/],
  ] as const)('rejects %j %j naming the field and the flag', (argv, env, message) => {
    expect(() => parseFlags([...argv], env)).toThrow(UsageError)
    expect(() => parseFlags([...argv], env)).toThrow(message)
  })

  it('reads --trust-proxy, --public-host and --origin-commands, each from its flag or environment variable', () => {
    expect(parseFlags(['--trust-proxy', '2'], {}).config.trustProxy).toBe(2)
    expect(parseFlags([], { WR_TRUST_PROXY: '10.0.0.0/8, ::1' }).config.trustProxy).toEqual(['10.0.0.0/8', '::1'])
    expect(parseFlags([], {}).config).toMatchObject({ trustProxy: undefined, publicHosts: undefined })
    expect(parseFlags(['--public-host', 'a.example', '--public-host', 'b.example, *.c.example'], {}).config.publicHosts).toEqual(['a.example', 'b.example', '*.c.example'])
    expect(parseFlags([], { WR_PUBLIC_HOSTS: 'shop.example:8443' }).config.publicHosts).toEqual(['shop.example:8443'])
    expect(parseFlags(['--origin-commands', 'revoke'], {}).config.room.enabledOriginCommands).toEqual(['revoke'])
    expect(parseFlags([], { WR_ORIGIN_COMMANDS: 'none' }).config.room.enabledOriginCommands).toEqual([])
    // A value that starts with a dash but is no flag of ours is a value.
    expect(parseFlags(['--room-id', '-blue-'], {}).config.room.roomId).toBe('-blue-')
  })

  it('accepts exactly the whole numbers in range for every numeric flag, and words every refusal in the flag\'s help', () => {
    const numeric = FLAGS.filter((flag) => flag.kind === 'integer')
    fc.assert(
      fc.property(
        fc.constantFrom(...numeric),
        fc.oneof(fc.integer({ min: -100_000, max: 20_000_000 }).map(String), fc.double({ noNaN: true, min: -1e6, max: 1e6 }).map(String), fc.constantFrom('', ' ', 'abc', '1e3', '0x10', '1,000')),
        fc.boolean(),
        (flag, text, viaEnv) => {
          const value = Number(text)
          const whole = /^-?\d+$/.test(text)
          const inRange = flag.choices ? flag.choices.includes(value) : value >= (flag.min ?? 0) && value <= flag.max!
          const run = () => (viaEnv ? parseFlags([], { [flag.env[0]!]: text }) : parseFlags([`--${flag.name}`, text], {}))
          // An empty variable counts as unset.
          if ((whole && inRange) || (viaEnv && text === '')) {
            expect(run).not.toThrow()
          } else {
            expect(run).toThrow(UsageError)
            expect(run).toThrow(`invalid ${viaEnv ? `${flag.env[0]}=` : `--${flag.name} `}`)
            expect(run).toThrow(`: ${flag.help} must be `)
          }
        },
      ),
      { numRuns: 400 },
    )
  })

  it('words every refusal of a string value in the flag\'s terms, never the option\'s code name or the schema\'s', () => {
    // Every flag, any text, from the command line or the environment: accepted, or refused naming where it came from.
    const codeNames = FLAGS.flatMap((flag) => (flag.option && flag.option !== flag.name ? [flag.option] : []))
    const schemaWords = /Invalid|expected one of|received|Too (small|big)|invalid option/
    const texts = fc.oneof(fc.string({ maxLength: 40 }), fc.constantFrom('', ' ', 'lifo', 'FIFO', 'Cloudflare', 'x'.repeat(31), 'a b', '-1', 'none', 'revoke,logout'))
    fc.assert(
      fc.property(fc.constantFrom(...FLAGS.filter((flag) => flag.kind !== 'boolean')), texts, fc.boolean(), (flag, text, viaEnv) => {
        const env = viaEnv ? { [flag.env[0]!]: text } : {}
        const argv = viaEnv ? [] : [`--${flag.name}=${text}`]
        // Flags that need another flag to mean anything get it.
        if (flag.name.startsWith('challenge-')) argv.push('--challenge', 'proof-of-work')
        if (flag.name === 'admin-path') argv.push('--admin-token', 'a-token-of-16-characters')
        let message: string
        try {
          parseFlags(argv, env)
          return
        } catch (error) {
          expect(error).toBeInstanceOf(UsageError)
          message = (error as Error).message
        }
        const source = viaEnv ? flag.env[0]! : `--${flag.name}`
        expect(message).toContain(source)
        expect(message).not.toMatch(schemaWords)
        for (const name of codeNames) expect(message).not.toMatch(new RegExp(`\\b${name}\\b`))
        if (flag.choices && text.trim() !== '') expect(message).toBe(`invalid ${source}${viaEnv ? '=' : ' '}${/\s/.test(text) ? JSON.stringify(text) : text}: ${flag.subject ?? flag.help} must be ${flag.choices.slice(0, -1).join(', ')} or ${flag.choices.at(-1)}`)
      }),
      { numRuns: 600, seed: 20 },
    )
    // Choices are matched in any case and come back as the table spells them.
    expect(parseFlags(['--queueing-method', 'Random'], {}).config.room.queueingMethod).toBe('random')
    expect(parseFlags([], { WR_COMPATIBILITY: 'CLOUDFLARE' }).config.room.compatibility).toBe('cloudflare')
  })

  it('reads --redis or WR_REDIS_URL, trimmed', () => {
    expect(parseFlags(['--redis', ' redis://127.0.0.1:6379/13 '], {}).config.redis).toBe('redis://127.0.0.1:6379/13')
    expect(parseFlags([], { WR_REDIS_URL: 'rediss://cache.internal:6380' }).config).toMatchObject({ redis: 'rediss://cache.internal:6380', store: undefined })
    expect(parseFlags([], {}).config.redis).toBeUndefined()
  })

  it('never echoes a Redis password back', () => {
    expect(redactUrl('redis://user:hunter2@cache.internal:6379/2')).toBe('redis://***@cache.internal:6379/2')
    expect(redactUrl('redis://:hunter2@cache.internal')).not.toContain('hunter2')
    expect(redactUrl('redis://127.0.0.1:6379')).toBe('redis://127.0.0.1:6379')
    expect(() => parseFlags(['--redis', 'https://user:hunter2@cache.internal'], {})).toThrow(/"https:\/\/\*\*\*@cache\.internal\/"/)
    expect(describeRoom({ origin: 'http://x', port: 0, host: '127.0.0.1', store: undefined, redis: 'redis://:hunter2@cache.internal:6379', room: {} })).toMatch(
      /state in Redis at redis:\/\/\*\*\*@cache\.internal:6379$/,
    )
  })

  it('never echoes a secret back', () => {
    const secret = 'not-long-enough-secret'
    expect(() => parseFlags(['--secret', secret], {})).toThrow(/invalid --secret \(the value is not shown\)/)
    try {
      parseFlags(['--secret', secret], {})
    } catch (error) {
      expect(String(error)).not.toContain(secret)
    }
  })
})

describe('main', () => {
  it('--help lists every flag with its environment variable and default, and exits 0', async () => {
    const { io, out } = capture()
    expect(await main(['--help'], {}, io)).toBe(0)
    const help = out.join('\n')
    for (const flag of FLAGS) {
      expect(help).toContain(`--${flag.name}`)
      for (const name of flag.env) expect(help).toContain(name)
    }
    expect(help).toContain('default 8787')
    expect(help).toMatch(/demo\s+a demo site/)
  })

  it('--help works even when an environment variable is bad', async () => {
    const { io, out } = capture()
    expect(await main(['--help'], { WR_PORT: 'eighty' }, io)).toBe(0)
    expect(out.join('\n')).toContain('--origin')
  })

  it('demo --help shows the demo limits as defaults and no --origin', async () => {
    const { io, out } = capture()
    expect(await main(['demo', '-h'], {}, io)).toBe(0)
    const help = out.join('\n')
    expect(help).toMatch(/--total-active-users <n>.*default 1\]/)
    expect(help).not.toMatch(/--origin\s/)
  })

  it('exits 2 with the field and flag named for a bad value, an unknown flag or command', async () => {
    const bad = capture()
    expect(await main(['--origin', 'http://127.0.0.1:1', '--new-users-per-minute=-5'], {}, bad.io)).toBe(2)
    expect(bad.err.join('\n')).toMatch(/^hono-waiting-room: invalid --new-users-per-minute -5: users allowed to enter in any one minute must be a whole number of users from 1/)
    expect(bad.err.join('\n')).toContain("Run 'hono-waiting-room --help'")

    const unknown = capture()
    expect(await main(['demo', '--origin', 'http://x'], {}, unknown.io)).toBe(2)
    expect(unknown.err.join('\n')).toContain("Unknown option '--origin'")
    expect(unknown.err.join('\n')).toContain("Run 'hono-waiting-room demo --help'")

    const command = capture()
    expect(await main(['serve'], {}, command.io)).toBe(2)
    const said = command.err.join('\n')
    expect(said).toMatch(/^hono-waiting-room: unknown command 'serve'\n/)
    // It lists the commands, and points at a help that exists, not at `serve --help`.
    for (const name of ['proxy', 'demo', 'simulate']) expect(said).toMatch(new RegExp(`^  ${name} `, 'm'))
    expect(said).not.toContain('serve --help')
  })

  it('exits 2 when --origin is missing or not an http(s) URL', async () => {
    const missing = capture()
    expect(await main(['--port', '0'], {}, missing.io)).toBe(2)
    expect(missing.err.join('\n')).toContain('missing --origin (or WR_ORIGIN)')

    const ftp = capture()
    expect(await main(['--port', '0'], { WR_ORIGIN: 'ftp://files.example' }, ftp.io)).toBe(2)
    expect(ftp.err.join('\n')).toMatch(/origin: expected an http\(s\) URL.*--origin or WR_ORIGIN/)
  })
})

describe('main: failures to start', () => {
  it('exits 1 naming the URL when Redis cannot be reached, before listening', async () => {
    const closed = await listen(new Hono().fetch, 0, '127.0.0.1')
    const port = closed.port
    await closed.close() // nothing listens there now
    const { io, err } = capture()
    const started = Date.now()
    expect(await main(['--origin', 'http://127.0.0.1:9', '--port', '0', '--redis', `redis://127.0.0.1:${port}`], {}, io)).toBe(1)
    expect(err.join('\n')).toMatch(new RegExp(`^hono-waiting-room: cannot reach Redis at redis://127\\.0\\.0\\.1:${port}: .*ECONNREFUSED.*Check --redis \\(or WR_REDIS_URL\\)`))
    expect(Date.now() - started).toBeLessThan(5000) // not retried
  })

  it('exits 2 for --store with --redis, without connecting to either', async () => {
    const { io, err } = capture()
    expect(await main(['--origin', 'http://127.0.0.1:9', '--store', '/nonexistent/dir/room.db', '--redis', 'redis://127.0.0.1:1'], {}, io)).toBe(2)
    expect(err.join('\n')).toContain('--store and --redis cannot be used together')
  })

  it('exits 1 with a readable message when the port is taken', async () => {
    const taken = await listen(new Hono().fetch, 0, '127.0.0.1')
    try {
      const { io, err } = capture()
      expect(await main(['--origin', 'http://127.0.0.1:9', '--port', String(taken.port)], {}, io)).toBe(1)
      expect(err.join('\n')).toBe(`hono-waiting-room: cannot listen on 127.0.0.1:${taken.port}: the port is in use`)
    } finally {
      await taken.close()
    }
  })
})

describe('lazily loaded modules', () => {
  it('--store explains itself when the SQLite adapter is missing', async () => {
    const loading = loadStoreCoordinator('/tmp/room.db', './no-such-store.ts')
    await expect(loading).rejects.toThrow(MissingModuleError)
    await expect(loadStoreCoordinator('/tmp/room.db', './no-such-store.ts')).rejects.toThrow(
      /--store \(the SQLite coordinator\) is not available: .*Run without --store/,
    )
  })

  it('--store explains itself when the module lacks sqliteStoreCoordinator()', async () => {
    await expect(loadStoreCoordinator('/tmp/room.db', './flags.ts')).rejects.toThrow(/does not export a function sqliteStoreCoordinator\(\)/)
  })

  it('--redis explains itself when the adapter or the redis package is missing', async () => {
    await expect(loadRedisCoordinator('redis://127.0.0.1:6379', { adapter: './no-such-adapter.ts' })).rejects.toThrow(
      /--redis \(the Redis coordinator\) is not available: .*Run without --redis/,
    )
    await expect(loadRedisCoordinator('redis://127.0.0.1:6379', { adapter: './flags.ts' })).rejects.toThrow(/does not export a function redisCoordinator\(\)/)
    const noClient = loadRedisCoordinator('redis://127.0.0.1:6379', { client: 'no-such-redis-package' })
    await expect(noClient).rejects.toThrow(MissingModuleError)
    await expect(loadRedisCoordinator('redis://127.0.0.1:6379', { client: 'no-such-redis-package' })).rejects.toThrow(/npm install redis/)
  })

  it('simulate explains itself when bin/simulate.ts is missing', async () => {
    await expect(runSimulateCommand([], './no-such-simulate.ts')).rejects.toThrow(/the simulate command is not available: .*bin\/simulate\.ts/)
  })
})

describe('--redis against the real redis-server (127.0.0.1:6379, database 13)', () => {
  const url = 'redis://127.0.0.1:6379/13'
  const ours = `hono-waiting-room:${process.pid}`

  async function namedClients(): Promise<number> {
    const admin = createClient({ url, socket: { connectTimeout: 2000, reconnectStrategy: false } })
    admin.on('error', () => {})
    await admin.connect()
    try {
      const list = await admin.clientList()
      return list.filter((entry) => entry.name === ours).length
    } finally {
      await admin.close()
    }
  }

  it('proxies through a room kept in Redis and closes its client with the server', async () => {
    const origin = await listen(new Hono().get('*', (c) => c.text('origin')).fetch, 0, '127.0.0.1')
    const roomId = `cli-test-${crypto.randomUUID().slice(0, 8)}`
    const before = await namedClients()
    const proxy = await startProxy({
      origin: origin.url,
      port: 0,
      host: '127.0.0.1',
      store: undefined,
      redis: url,
      room: { roomId, totalActiveUsers: 1, newUsersPerMinute: 1, secret: 'r'.repeat(40) },
    })
    try {
      expect(await namedClients()).toBe(before + 1)
      const first = await fetch(`${proxy.url}/a`)
      expect(await first.text()).toBe('origin')
      const second = await fetch(`${proxy.url}/b`, { headers: { accept: 'text/html' } })
      expect(await second.text()).toContain('id="wait-time"')
    } finally {
      await proxy.close()
      await origin.close()
    }
    expect(await namedClients()).toBe(before)
    // Leave nothing behind in the test database.
    const admin = createClient({ url })
    admin.on('error', () => {})
    await admin.connect()
    for await (const keys of admin.scanIterator({ MATCH: `wr:{${roomId}}:*`, COUNT: 1000 })) if (keys.length > 0) await admin.unlink(keys)
    await admin.close()
  })
})
