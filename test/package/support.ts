/// <reference types="node" />
/**
 * @module
 * What the package tests share: where things are (the checkout, the runtimes test/runtimes installs, the
 * packed tarball global-setup.ts made), running a command with a time bound, npm installs, and servers
 * started as a user would start them, asked over HTTP whether they admit or queue.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { existsSync } from 'node:fs'
import { createServer } from 'node:net'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { inject } from 'vitest'

export const ROOT = fileURLToPath(new URL('../../', import.meta.url))
const RUNTIMES_BIN = join(ROOT, 'test/runtimes/node_modules/.bin')
/** The runtime binaries from test/runtimes (`npm run test:runtimes`); Node 20 is the one running the tests. */
export const BIN = {
  node20: process.execPath,
  node22: join(RUNTIMES_BIN, 'node'),
  bun: join(RUNTIMES_BIN, 'bun'),
  deno: join(RUNTIMES_BIN, 'deno'),
  tsc: join(ROOT, 'node_modules/typescript/bin/tsc'),
}
for (const [name, path] of Object.entries(BIN)) {
  if (!existsSync(path)) throw new Error(`${name}: ${path} is missing — run \`npm run test:runtimes\` (npm test does it first)`)
}

/** Set by global-setup.ts: the packed tarball and this run's scratch directory. */
export const packed = () => ({ tarball: inject('tarball'), work: inject('work'), stage: inject('stage') })

export interface Run {
  code: number | null
  stdout: string
  stderr: string
  /** stdout and stderr, for failure messages. */
  output: string
}

export interface RunOptions {
  cwd: string
  env?: Record<string, string | undefined>
  timeoutMs?: number
}

/** Runs a command to its end (killed after `timeoutMs`), collecting its output. Never rejects on a non-zero exit. */
export function run(command: string, args: string[], { cwd, env, timeoutMs = 120_000 }: RunOptions): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk))
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk))
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs)
    child.on('error', reject)
    child.on('close', (code) => {
      clearTimeout(timer)
      resolve({ code, stdout, stderr, output: `$ ${command} ${args.join(' ')}\n${stdout}${stderr}` })
    })
  })
}

/** Like `run`, but throws (with the output) unless the command exits 0. */
export async function ok(command: string, args: string[], options: RunOptions): Promise<Run> {
  const result = await run(command, args, options)
  if (result.code !== 0) throw new Error(`exit ${result.code} in ${options.cwd}\n${result.output}`)
  return result
}

/** npm with this run's settings: no audit or funding calls, the registry only for what the cache lacks. */
export function npm(args: string[], cwd: string, env?: Record<string, string | undefined>): Promise<Run> {
  return ok('npm', [...args, '--no-audit', '--no-fund', '--prefer-offline', '--loglevel=error'], { cwd, env, timeoutMs: 240_000 })
}

/** A port free at the time of asking (the server started next binds it). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer()
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number }
      server.close(() => resolve(port))
    })
  })
}

export interface Started {
  child: ChildProcess
  output: () => string
  /** SIGTERM to the process group (the server and the processes it forked), SIGKILL after 5 s. */
  stop(): Promise<void>
}

/** Starts a long-running server in its own process group and waits for `ready` in its output. */
export async function startServer(command: string, args: string[], options: RunOptions & { ready: RegExp }): Promise<Started> {
  const child = spawn(command, args, { cwd: options.cwd, env: { ...process.env, ...options.env }, stdio: ['ignore', 'pipe', 'pipe'], detached: true })
  let output = ''
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
  const signal = (name: NodeJS.Signals) => {
    try {
      process.kill(-child.pid!, name)
    } catch {
      // already gone
    }
  }
  const started: Started = {
    child,
    output: () => output,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return
      signal('SIGTERM')
      const killer = setTimeout(() => signal('SIGKILL'), 5000)
      await exited
      clearTimeout(killer)
    },
  }
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => fail('did not become ready'), options.timeoutMs ?? 30_000)
    function fail(why: string) {
      clearTimeout(timer)
      void started.stop()
      reject(new Error(`${command} ${args.join(' ')}: ${why}\n${output}`))
    }
    const onData = (chunk: Buffer) => {
      output += chunk
      if (options.ready.test(output)) {
        clearTimeout(timer)
        resolve()
      }
    }
    child.stdout!.on('data', onData)
    child.stderr!.on('data', onData)
    child.once('error', (error) => fail(error.message))
    child.once('exit', (code, sig) => fail(`exited (${sig ?? code}) before it was ready`))
  })
  return started
}

export type Outcome = 'admitted' | 'queued'

/**
 * What a new user (no cookie, its own connection) gets: the app's page, or the waiting room's. The room
 * marks its answers: the queue page refreshes itself, and its JSON says `inWaitingRoom`.
 */
export async function visit(url: string, init: RequestInit = {}): Promise<{ outcome: Outcome; status: number; body: string }> {
  const response = await fetch(url, { ...init, headers: { connection: 'close', ...init.headers } })
  const body = await response.text()
  const queued = response.headers.has('refresh') || /"inWaitingRoom":\s*true/.test(body)
  return { outcome: queued ? 'queued' : 'admitted', status: response.status, body }
}

/** `count` new users one after another; the outcomes in order. */
export async function newUsers(url: string, count: number, init?: RequestInit): Promise<Outcome[]> {
  const outcomes: Outcome[] = []
  for (let i = 0; i < count; i++) outcomes.push((await visit(url, init)).outcome)
  return outcomes
}
