/// <reference types="node" />
/**
 * @module
 * Starts `worker.mjs` in a child process and follows its stdout line by line, for the multi-process tests.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { fileURLToPath } from 'node:url'

const WORKER = fileURLToPath(new URL('./worker.mjs', import.meta.url))

export interface Worker {
  readonly lines: string[]
  /** Everything the worker wrote to stderr so far. */
  readonly stderr: string
  /** Resolves with the first line (seen or to come) that matches; rejects after `timeoutMs` or on exit. */
  waitFor(match: (line: string) => boolean, timeoutMs?: number): Promise<string>
  send(line: string): void
  kill(signal: NodeJS.Signals): void
  /** The exit code (null when killed by a signal). */
  readonly exited: Promise<number | null>
}

const running = new Set<ChildProcess>()

/** Kills every worker still running (a failed test must not leave one looping). */
export function killAllWorkers(): void {
  for (const child of running) child.kill('SIGKILL')
}

/**
 * Runs the worker with `runtime` (`process.execPath`, `node` or a `bun` binary) and the given job, as the
 * user `uid` when given (the test must run as root then).
 */
export function startWorker(runtime: string, job: Record<string, unknown>, uid?: number): Worker {
  const as = uid === undefined ? {} : { uid, gid: uid }
  const child: ChildProcess = spawn(runtime, [WORKER, JSON.stringify(job)], { stdio: ['pipe', 'pipe', 'pipe'], ...as })
  running.add(child)
  const lines: string[] = []
  let stderr = ''
  let partial = ''
  const listeners = new Set<() => void>()
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
    const parts = (partial + chunk).split('\n')
    partial = parts.pop()!
    lines.push(...parts)
    for (const listener of listeners) listener()
  })
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk))
  const exited = new Promise<number | null>((resolve) =>
    child.on('exit', (code) => {
      running.delete(child)
      resolve(code)
    }),
  )
  let hasExited = false
  void exited.then(() => {
    hasExited = true
    for (const listener of listeners) listener()
  })

  return {
    lines,
    get stderr() {
      return stderr
    },
    exited,
    send: (line) => child.stdin!.write(`${line}\n`),
    kill: (signal) => child.kill(signal),
    waitFor(match, timeoutMs = 20_000) {
      return new Promise((resolve, reject) => {
        const check = (): void => {
          const found = lines.find(match)
          if (found !== undefined) return done(() => resolve(found))
          if (hasExited) done(() => reject(new Error(`worker exited before the expected line; stdout:\n${lines.join('\n')}\nstderr:\n${stderr}`)))
        }
        const timer = setTimeout(() => done(() => reject(new Error(`no expected line within ${timeoutMs} ms; stderr:\n${stderr}`))), timeoutMs)
        const done = (settle: () => void): void => {
          clearTimeout(timer)
          listeners.delete(check)
          settle()
        }
        listeners.add(check)
        check()
      })
    },
  }
}
