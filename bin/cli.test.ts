/// <reference types="node" />
/**
 * The CLI in-process: flag and environment parsing, help, usage errors (exit 2, naming the field and
 * flag), and the lazily loaded modules' "not available" errors.
 */
import { describe, expect, it } from 'vitest'
import { Hono } from 'hono'
import { main } from './cli.ts'
import { listen } from './listen.ts'
import { FLAGS, parseFlags, UsageError } from './flags.ts'
import { MissingModuleError } from './lazy-import.ts'
import { loadStoreCoordinator } from './store.ts'
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
    [['--total-active-users', '0'], {}, /totalActiveUsers: .*\(--total-active-users=0\)/],
    [['--session-duration', '31'], {}, /sessionDurationMinutes: .*\(--session-duration=31\)/],
    [['--queueing-method', 'lifo'], {}, /queueingMethod: .*\(--queueing-method=lifo\)/],
    [['--status-code', '404'], {}, /queueingStatusCode: .*\(--status-code=404\)/],
    [[], { WR_REFRESH_INTERVAL: 'soon' }, /refreshIntervalSeconds: .*\(WR_REFRESH_INTERVAL=soon\)/],
    [[], { WR_SECRET: 'short' }, /secret: at least 32 characters \(set by WR_SECRET\)/],
    [['--json=maybe'], {}, /Option '--json' does not take an argument/],
    [[], { WR_JSON: 'maybe' }, /invalid WR_JSON: expected true or false/],
    [['--port', '70000'], {}, /invalid --port: expected a port number 0-65535, got 70000/],
    [['--nope'], {}, /Unknown option '--nope'/],
    [['--total-active-users', '-1'], {}, /argument is ambiguous/],
    [['extra'], {}, /Unexpected argument 'extra'/],
  ] as const)('rejects %j %j naming the field and the flag', (argv, env, message) => {
    expect(() => parseFlags([...argv], env)).toThrow(UsageError)
    expect(() => parseFlags([...argv], env)).toThrow(message)
  })

  it('never echoes a secret back', () => {
    const secret = 'not-long-enough-secret'
    expect(() => parseFlags(['--secret', secret], {})).toThrow(/set by --secret/)
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
    expect(help).not.toContain('--origin')
  })

  it('exits 2 with the field and flag named for a bad value, an unknown flag or command', async () => {
    const bad = capture()
    expect(await main(['--origin', 'http://127.0.0.1:1', '--new-users-per-minute=-5'], {}, bad.io)).toBe(2)
    expect(bad.err.join('\n')).toMatch(/newUsersPerMinute: .*--new-users-per-minute=-5/)
    expect(bad.err.join('\n')).toContain("Run 'hono-waiting-room --help'")

    const unknown = capture()
    expect(await main(['demo', '--origin', 'http://x'], {}, unknown.io)).toBe(2)
    expect(unknown.err.join('\n')).toContain("Unknown option '--origin'")
    expect(unknown.err.join('\n')).toContain("Run 'hono-waiting-room demo --help'")

    const command = capture()
    expect(await main(['serve'], {}, command.io)).toBe(2)
    expect(command.err.join('\n')).toContain("unknown command 'serve'")
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

  it('simulate explains itself when bin/simulate.ts is missing', async () => {
    await expect(runSimulateCommand([], './no-such-simulate.ts')).rejects.toThrow(/the simulate command is not available: .*bin\/simulate\.ts/)
  })
})
