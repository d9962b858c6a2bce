/// <reference types="node" />
/**
 * The built executable as a child process: compiled from the current sources into a private folder (so a
 * stale or half-written dist/ cannot fool it), started on a free port, driven over loopback, stopped by signal.
 * Longer than most files on purpose: every test that needs the compiled CLI is here, so it is built once.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process'
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { fileURLToPath } from 'node:url'
import { join } from 'node:path'
import { Hono } from 'hono'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { listen, type Listening } from './listen.ts'

const ROOT = fileURLToPath(new URL('..', import.meta.url))
// Under node_modules so the compiled files resolve hono and friends from the project.
const OUT = join(ROOT, 'node_modules', '.cache', `hono-waiting-room-cli-test-${process.pid}`)
const BIN = join(OUT, 'bin', 'hono-waiting-room.js')
/** The child's environment: none of the runner's WR_* or PORT variables. */
// NODE_PATH: better-sqlite3 (for --store) is installed in test/runtimes/ and found through it.
const ENV = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', NODE_PATH: process.env.NODE_PATH ?? '' }

const children: ChildProcess[] = []

function run(args: string[], env: Record<string, string> = {}, bin = BIN) {
  return spawnSync(process.execPath, [bin, ...args], { env: { ...ENV, ...env }, encoding: 'utf8', timeout: 10_000 })
}

/** Starts the executable and resolves with its first stdout line matching `ready`, or rejects with its output. */
function start(args: string[], ready: RegExp = /listening on (http:\/\/127\.0\.0\.1:\d+)/): Promise<{ child: ChildProcess; match: RegExpMatchArray; output: () => string }> {
  const child = spawn(process.execPath, [BIN, ...args], { env: ENV, stdio: ['ignore', 'pipe', 'pipe'] })
  children.push(child)
  let output = ''
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`not ready within 20 s:\n${output}`)), 20_000)
    const onData = (chunk: Buffer) => {
      output += chunk.toString()
      const match = ready.exec(output)
      if (match) {
        clearTimeout(timer)
        resolve({ child, match, output: () => output })
      }
    }
    child.stdout!.on('data', onData)
    child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()))
    child.once('exit', (code) => {
      clearTimeout(timer)
      reject(new Error(`exited with ${code} before ready:\n${output}`))
    })
  })
}

function exitOf(child: ChildProcess): Promise<number | null> {
  if (child.exitCode !== null) return Promise.resolve(child.exitCode)
  return new Promise((resolve) => child.once('exit', (code) => resolve(code)))
}

let origin: Listening

beforeAll(async () => {
  // What matters is the emitted JavaScript: `npm run typecheck` checks the types. --noCheck emits the same
  // files without type-checking the project again (about 10 of 17 CPU seconds on a 2-core machine).
  const build = spawnSync(process.execPath, [join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.build.json', '--outDir', OUT, '--declaration', 'false', '--sourceMap', 'false', '--noCheck'], {
    cwd: ROOT,
    encoding: 'utf8',
    timeout: 240_000, // a loaded CI machine: the build alone took 75 s once
  })
  if (!existsSync(BIN)) throw new Error(`build produced no ${BIN}:\n${build.stdout}${build.stderr}`)
  const app = new Hono()
  app.get('/logout', (c) => c.text('bye', 200, { 'Waiting-Room-Command': 'revoke' }))
  app.get('*', (c) => c.text(`origin saw ${c.req.path}`))
  origin = await listen(app.fetch, 0, '127.0.0.1')
}, 270_000)

afterAll(async () => {
  for (const child of children) if (child.exitCode === null) child.kill('SIGKILL')
  await origin?.close()
  rmSync(OUT, { recursive: true, force: true })
})

describe('the hono-waiting-room executable', () => {
  it('starts with a node shebang', async () => {
    const { readFileSync } = await import('node:fs')
    expect(readFileSync(BIN, 'utf8').startsWith('#!/usr/bin/env node\n')).toBe(true)
  })

  it('--help lists the flags with their environment variables', () => {
    const result = run(['--help'])
    expect(result.status).toBe(0)
    for (const text of ['--origin', 'WR_ORIGIN', '--port', 'WR_PORT', '--total-active-users', 'WR_TOTAL_ACTIVE_USERS', '--secret', 'WAITING_ROOM_SECRET', '--store', '--redis', 'WR_REDIS_URL']) {
      expect(result.stdout).toContain(text)
    }
  })

  it('exits 2 naming the flag for a bad flag value or environment variable', () => {
    const flag = run(['--origin', origin.url, '--session-duration', '99'])
    expect(flag.status).toBe(2)
    expect(flag.stderr).toContain('invalid --session-duration 99: minutes a user stays active after their last request must be a whole number of minutes from 1 to 30')

    const env = run(['--origin', origin.url], { WR_QUEUEING_METHOD: 'lifo' })
    expect(env.status).toBe(2)
    expect(env.stderr).toBe("hono-waiting-room: invalid WR_QUEUEING_METHOD=lifo: the queueing method must be fifo, random, passthrough or reject\nRun 'hono-waiting-room --help' to see the flags.\n")
  })

  it('proxies to the origin, queues past the limit, and stops on SIGTERM', async () => {
    const { child, match } = await start(
      ['--origin', origin.url, '--port', '0', '--total-active-users', '1', '--new-users-per-minute', '1'],
      /listening on (http:\/\/127\.0\.0\.1:\d+)/,
    )
    const url = match[1]!
    const first = await fetch(`${url}/hello?x=1`)
    expect(first.status).toBe(200)
    expect(await first.text()).toBe('origin saw /hello')
    const ticket = first.headers.getSetCookie().find((cookie) => cookie.startsWith('__wroom='))!.split(';')[0]!

    const second = await fetch(`${url}/hello`, { headers: { accept: 'text/html' } })
    expect(await second.text()).toContain('id="wait-time"')

    const again = await fetch(`${url}/again`, { headers: { cookie: ticket } })
    expect(await again.text()).toBe('origin saw /again')

    child.kill('SIGTERM')
    expect(await exitOf(child)).toBe(0)
  })

  it('--store shares one room between two processes on one SQLite file', async () => {
    const store = join(OUT, 'room.db')
    const common = ['--origin', origin.url, '--port', '0', '--total-active-users', '1', '--new-users-per-minute', '1', '--store', store, '--secret', 's'.repeat(40)]
    const ready = /listening on (http:\/\/127\.0\.0\.1:\d+)/
    const [one, two] = await Promise.all([start(common, ready), start(common, ready)])
    const first = await fetch(`${one.match[1]}/a`)
    expect(await first.text()).toBe('origin saw /a')
    const ticket = first.headers.getSetCookie().find((cookie) => cookie.startsWith('__wroom='))!.split(';')[0]!

    // The room is full for the other process too, and it honours the first one's ticket.
    const second = await fetch(`${two.match[1]}/b`, { headers: { accept: 'text/html' } })
    expect(await second.text()).toContain('id="wait-time"')
    const sameUser = await fetch(`${two.match[1]}/c`, { headers: { cookie: ticket } })
    expect(await sameUser.text()).toBe('origin saw /c')
    expect(existsSync(store)).toBe(true)

    one.child.kill('SIGTERM')
    two.child.kill('SIGTERM')
    expect(await exitOf(one.child)).toBe(0)
    expect(await exitOf(two.child)).toBe(0)
  })

  it('--redis shares one room between two processes on one Redis, and exits 1 when Redis is unreachable', async () => {
    // Database 13 and a room of its own, as the adapter's tests: nobody's data is touched; keys deleted after.
    const url = 'redis://127.0.0.1:6379/13'
    const roomId = `cli-process-${crypto.randomUUID().slice(0, 8)}`
    const common = ['--origin', origin.url, '--port', '0', '--total-active-users', '1', '--new-users-per-minute', '1', '--redis', url, '--room-id', roomId, '--secret', 's'.repeat(40)]
    const ready = /listening on (http:\/\/127\.0\.0\.1:\d+)/
    try {
      const [one, two] = await Promise.all([start(common, ready), start(common, ready)])
      expect(one.output()).toContain(`state in Redis at ${url}`)
      const first = await fetch(`${one.match[1]}/a`)
      expect(await first.text()).toBe('origin saw /a')
      const ticket = first.headers.getSetCookie().find((cookie) => cookie.startsWith('__wroom='))!.split(';')[0]!

      // The room is full for the other process too, and it honours the first one's ticket.
      const second = await fetch(`${two.match[1]}/b`, { headers: { accept: 'text/html' } })
      expect(await second.text()).toContain('id="wait-time"')
      const sameUser = await fetch(`${two.match[1]}/c`, { headers: { cookie: ticket } })
      expect(await sameUser.text()).toBe('origin saw /c')

      one.child.kill('SIGTERM')
      two.child.kill('SIGTERM')
      expect(await exitOf(one.child)).toBe(0)
      expect(await exitOf(two.child)).toBe(0)
    } finally {
      const { createClient } = await import('redis')
      const admin = createClient({ url, socket: { connectTimeout: 2000, reconnectStrategy: false } })
      admin.on('error', () => {})
      await admin.connect()
      for await (const keys of admin.scanIterator({ MATCH: `wr:{${roomId}}:*`, COUNT: 1000 })) if (keys.length > 0) await admin.unlink(keys)
      await admin.close()
    }

    // Port 1 on loopback: nothing listens there.
    const down = run(['--origin', origin.url, '--port', '0', '--redis', 'redis://127.0.0.1:1'])
    expect(down.status).toBe(1)
    expect(down.stderr).toMatch(/^hono-waiting-room: cannot reach Redis at redis:\/\/127\.0\.0\.1:1: .*ECONNREFUSED/)
    expect(down.stdout).not.toContain('listening')

    const both = run(['--origin', origin.url, '--store', join(OUT, 'x.db'), '--redis', url])
    expect(both.status).toBe(2)
    expect(both.stderr).toContain('--store and --redis cannot be used together')
  })

  it('demo serves its page behind a one-user room, and the dashboard with the token it prints', async () => {
    const { child, match } = await start(['demo', '--port', '0'], /Waiting room demo at http:\/\/localhost:(\d+)[\s\S]*dashboard at http:\/\/localhost:\d+\/_room \(admin token ([\w-]{32})\)/)
    const url = `http://127.0.0.1:${match[1]}`
    const first = await fetch(url)
    const page = await first.text()
    expect(page).toContain("You're in!")
    expect(first.headers.getSetCookie().some((cookie) => cookie.startsWith('demo_visitor='))).toBe(true)

    const second = await fetch(url, { headers: { accept: 'text/html' } })
    expect(await second.text()).toContain('id="wait-time"')

    // The dashboard, with the token the demo printed, gets through the full room.
    const token = match[2]
    expect(await (await fetch(`${url}/_room`)).text()).toContain('Waiting room dashboard')
    const status = await fetch(`${url}/_room/status`, { headers: { authorization: `Bearer ${token}` } })
    expect((await status.json()).status).toBe('queueing')
    child.kill('SIGINT')
    expect(await exitOf(child)).toBe(0)
  })
})

/** A copy of the build whose node_modules lacks the optional packages, as after a plain `npm install hono-waiting-room`. */
function buildWithout(packages: string[]): string {
  const dir = mkdtempSync(join(tmpdir(), 'hwr-cli-bare-'))
  for (const part of ['bin', 'src', 'adapters']) cpSync(join(OUT, part), join(dir, part), { recursive: true })
  mkdirSync(join(dir, 'node_modules'))
  for (const name of readdirSync(join(ROOT, 'node_modules'))) {
    if (!packages.includes(name)) symlinkSync(join(ROOT, 'node_modules', name), join(dir, 'node_modules', name))
  }
  return dir
}

describe('the executable: messages a user can act on', () => {
  it('explains negative and fractional numbers in the flag\'s own words, on one line', () => {
    for (const [flag, value, words] of [
      ['--total-active-users', '-5', 'users allowed on the site at once must be a whole number of users from 1 to 10000000'],
      ['--session-duration', '2.5', 'minutes a user stays active after their last request must be a whole number of minutes from 1 to 30'],
      ['--port', '-1', 'port to listen on, 0 for any free port must be a whole number from 0 to 65535'],
    ]) {
      const result = run(['--origin', origin.url, flag!, value!])
      expect(result.status).toBe(2)
      expect(result.stderr).toBe(`hono-waiting-room: invalid ${flag} ${value}: ${words}\nRun 'hono-waiting-room --help' to see the flags.\n`)
    }
  })

  it('names --store and the file, not the adapter, when the SQLite file cannot be opened', () => {
    const result = run(['--origin', origin.url, '--port', '0', '--store', '/nonexistent/dir/room.db'])
    expect(result.status).toBe(1)
    expect(result.stderr).toMatch(/^hono-waiting-room: --store \/nonexistent\/dir\/room\.db \(SQLite\): cannot open .*directory.*\n$/)
    expect(result.stderr).not.toContain('bun-sqlite')
  })

  it('refuses to start, naming --store and the file, when the file is not a SQLite database or cannot be opened', () => {
    const dir = mkdtempSync(join(tmpdir(), 'hwr-cli-store-'))
    try {
      const notes = join(dir, 'notes.txt')
      writeFileSync(notes, 'a text file, not a database\n'.repeat(40))
      for (const [file, what] of [
        [notes, 'the file is not a SQLite database: give --store a new file, or one the proxy created'],
        ['/proc/version', '/proc/version cannot be used: unable to open database file'],
        [dir, 'cannot open '],
      ] as const) {
        const result = run(['--origin', origin.url, '--port', '0', '--secret', 's'.repeat(40), '--store', file])
        // Before: a running proxy that logged "bun-sqlite: … cannot be used" and queued everyone.
        expect(result.status, result.stdout + result.stderr).toBe(1)
        expect(result.stdout).not.toContain('listening')
        expect(result.stderr).toContain(`hono-waiting-room: --store ${file} (SQLite): ${what}`)
        expect(result.stderr.split('\n')).toHaveLength(2) // one line, then the final newline
        expect(result.stderr).not.toContain('bun-sqlite')
      }
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })

  it('refuses an explicitly empty --store, as it does an empty --redis, rather than keep the room in memory', () => {
    for (const flag of ['--store', '--redis']) {
      const result = run(['--origin', origin.url, '--port', '0', flag, ''])
      expect(result.status).toBe(2)
      expect(result.stdout).not.toContain('listening')
    }
    expect(run(['--origin', origin.url, '--port', '0', '--store', '']).stderr).toMatch(/^hono-waiting-room: --store is empty: it needs a value/)
  })

  // test/runtimes holds Node 22 and a better-sqlite3 compiled by (and for) the Node that installed it, Node 20:
  // the situation after a Node upgrade or `nvm use`. Under a runner on Node 22 there is no mismatch to show.
  it.runIf(process.versions.modules !== '127')('says to rebuild better-sqlite3 when it was built for another Node.js, without blaming the file', () => {
    const node22 = join(ROOT, 'test/runtimes/node_modules/.bin/node')
    const dir = mkdtempSync(join(tmpdir(), 'hwr-cli-abi-'))
    try {
      const result = spawnSync(node22, [BIN, '--origin', origin.url, '--port', '0', '--store', join(dir, 'room.db')], { env: ENV, encoding: 'utf8', timeout: 10_000 })
      expect(result.status, result.stderr).toBe(1)
      expect(result.stderr).toMatch(/^hono-waiting-room: --store: better-sqlite3 was built for another Node\.js \(NODE_MODULE_VERSION \d+; this Node\.js v22\.\d+\.\d+ needs 127\): rebuild it with this Node\.js \(npm rebuild better-sqlite3, or reinstall it\)\n$/)
      expect(result.stderr).not.toMatch(/directory|writable|room\.db/)
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })

  it('says a command is unknown and lists the commands, rather than point at its --help', () => {
    const result = run(['frobnicate'])
    expect(result.status).toBe(2)
    expect(result.stderr).toMatch(/^hono-waiting-room: unknown command 'frobnicate'\nCommands:\n {2}proxy /)
    expect(result.stderr).not.toContain('frobnicate --help')
    expect(run(['--help']).status).toBe(0) // the help it points at exists
  })

  it('says in one line which package to install when better-sqlite3 or redis is missing', () => {
    const bare = buildWithout(['better-sqlite3', 'redis'])
    try {
      const bin = join(bare, 'bin', 'hono-waiting-room.js')
      // No NODE_PATH: the test runtimes folder holds better-sqlite3 and would be found through it.
      const store = run(['--origin', origin.url, '--port', '0', '--store', join(bare, 'room.db')], { NODE_PATH: '' }, bin)
      expect(store.status).toBe(1)
      expect(store.stderr).toBe(
        'hono-waiting-room: --store needs the better-sqlite3 package, which is not installed: run npm install better-sqlite3 (or leave out --store to keep the room in memory)\n',
      )
      const redis = run(['--origin', origin.url, '--port', '0', '--redis', 'redis://127.0.0.1:6379'], { NODE_PATH: '' }, bin)
      expect(redis.status).toBe(1)
      expect(redis.stderr).toBe('hono-waiting-room: --redis needs the redis package, which is not installed: run npm install redis (or leave out --redis to keep the room in memory)\n')
    } finally {
      rmSync(bare, { recursive: true, force: true })
    }
  })
})

describe('the executable: forwarding flags', () => {
  it('--origin-commands revoke lets the origin end a session; the header never reaches the client', async () => {
    const { child, match } = await start(['--origin', origin.url, '--port', '0', '--origin-commands', 'revoke'])
    const url = match[1]!
    const first = await fetch(`${url}/a`)
    const ticket = first.headers.getSetCookie().find((cookie) => cookie.startsWith('__wroom='))!.split(';')[0]!
    const logout = await fetch(`${url}/logout`, { headers: { cookie: ticket } })
    expect(await logout.text()).toBe('bye')
    expect(logout.headers.get('waiting-room-command')).toBeNull()
    expect(logout.headers.getSetCookie().some((cookie) => /^__wroom=; Max-Age=0/.test(cookie))).toBe(true)
    child.kill('SIGTERM')
    expect(await exitOf(child)).toBe(0)

    // Without the flag the origin's command is dropped, not obeyed.
    const plain = await start(['--origin', origin.url, '--port', '0'])
    const ignored = await fetch(`${plain.match[1]}/logout`)
    expect(ignored.headers.get('waiting-room-command')).toBeNull()
    expect(ignored.headers.getSetCookie().some((cookie) => cookie.startsWith('__wroom=;'))).toBe(false)
    plain.child.kill('SIGTERM')
    expect(await exitOf(plain.child)).toBe(0)
  })

  it('--public-host refuses other hosts with 421, --trust-proxy believes the proxy in front, and the banner says so', async () => {
    const { child, match, output } = await start(['--origin', origin.url, '--port', '0', '--public-host', 'shop.example', '--trust-proxy', '1'])
    const url = match[1]!
    expect((await fetch(`${url}/a`)).status).toBe(421) // Host 127.0.0.1:port is not ours
    const viaProxy = await fetch(`${url}/a`, { headers: { 'x-forwarded-host': 'shop.example', 'x-forwarded-proto': 'https' } })
    expect(await viaProxy.text()).toBe('origin saw /a')
    expect(viaProxy.headers.getSetCookie().find((cookie) => cookie.startsWith('__wroom='))).toContain('; Secure')
    expect(output()).toContain('hosts shop.example; forwarding headers trusted from 1 proxy hop')
    child.kill('SIGTERM')
    expect(await exitOf(child)).toBe(0)
  })
})
