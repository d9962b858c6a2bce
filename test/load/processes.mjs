/**
 * Child processes of the load tests: every one is tracked and killed when the runner ends, however it ends
 * (normal exit, failure, exception, Ctrl+C). Every child also holds an IPC channel to the runner and ends
 * itself when it closes, so not even a runner killed with SIGKILL leaves one behind.
 */
import { spawn } from 'node:child_process'
import { readFileSync } from 'node:fs'

const children = new Set()
/** Output kept per child (the last this many characters of stdout and of stderr). */
const KEEP = 64 * 1024

/** Kills every child still running but those in `except` (synchronous, so it also works in an 'exit' handler). */
export function killAll(except = [], signal = 'SIGKILL') {
  for (const child of children) {
    if (except.includes(child)) continue
    try {
      child.kill(signal)
    } catch {
      // already gone
    }
  }
}

let installed = false
/** Kills every child on any way out of the runner. `onSignal` runs first on Ctrl+C / SIGTERM. */
export function installCleanup(onFatal) {
  if (installed) return
  installed = true
  process.on('exit', () => killAll())
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
    process.on(signal, () => {
      onFatal(`stopped by ${signal}`)
      killAll()
      process.exit(130)
    })
  }
  process.on('uncaughtException', (error) => {
    onFatal(`uncaught: ${error?.stack ?? error}`)
    killAll()
    process.exit(1)
  })
  process.on('unhandledRejection', (error) => {
    onFatal(`unhandled rejection: ${error?.stack ?? error}`)
    killAll()
    process.exit(1)
  })
}

/**
 * Starts `command args` with an IPC channel; `wrap` runs it through `sh -c 'ulimit -n N; exec …'` to give it
 * more file descriptors than the runner has. Output is kept (bounded) and passed to `onLine`.
 */
export function startChild(label, command, args, { cwd, env, onStdoutLine, onStderrLine, fileLimit } = {}) {
  let file = command
  let argv = args
  if (fileLimit) {
    const quoted = [command, ...args].map((part) => `'${String(part).replace(/'/g, `'\\''`)}'`).join(' ')
    file = '/bin/sh'
    argv = ['-c', `ulimit -n ${fileLimit} 2>/dev/null; exec ${quoted}`]
  }
  const child = spawn(file, argv, { cwd, env, stdio: ['ignore', 'pipe', 'pipe', 'ipc'] })
  children.add(child)
  child.once('exit', () => children.delete(child))
  child.label = label
  child.stdoutText = ''
  child.stderrText = ''
  const follow = (stream, key, onLine) => {
    let partial = ''
    stream.setEncoding('utf8')
    stream.on('data', (chunk) => {
      child[key] = (child[key] + chunk).slice(-KEEP)
      if (!onLine) return
      partial += chunk
      let newline
      while ((newline = partial.indexOf('\n')) !== -1) {
        const line = partial.slice(0, newline)
        partial = partial.slice(newline + 1)
        onLine(line)
      }
      if (partial.length > KEEP) partial = partial.slice(-KEEP)
    })
  }
  follow(child.stdout, 'stdoutText', onStdoutLine)
  follow(child.stderr, 'stderrText', onStderrLine)
  child.on('error', () => {}) // spawn failures surface through 'exit' and the checks
  return child
}

/** Resolves with the first stdout line matching `pattern`'s match, or rejects with the child's output. */
export function waitForLine(child, pattern, timeoutMs) {
  return new Promise((resolve, reject) => {
    const check = () => {
      const match = pattern.exec(child.stdoutText)
      if (match) {
        cleanup()
        resolve(match)
      }
    }
    const timer = setTimeout(() => {
      cleanup()
      reject(new Error(`${child.label}: not ready within ${timeoutMs} ms\n${child.stdoutText}${child.stderrText}`))
    }, timeoutMs)
    const onExit = (code) => {
      cleanup()
      reject(new Error(`${child.label}: exited with ${code} before ready\n${child.stdoutText}${child.stderrText}`))
    }
    const cleanup = () => {
      clearTimeout(timer)
      child.stdout.off('data', check)
      child.off('exit', onExit)
    }
    child.stdout.on('data', check)
    child.once('exit', onExit)
    check()
  })
}

/** Resolves with the child's exit code (null when killed by a signal), or undefined after `timeoutMs`. */
export function exitOf(child, timeoutMs) {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(child.exitCode)
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(undefined), timeoutMs)
    child.once('exit', (code) => {
      clearTimeout(timer)
      resolve(code)
    })
  })
}

/** Stops a child with SIGTERM; SIGKILL after `graceMs`. Resolves with its exit code (undefined if it had to be killed). */
export async function stop(child, graceMs = 5000) {
  if (child.exitCode !== null || child.signalCode !== null) return child.exitCode
  child.kill('SIGTERM')
  const code = await exitOf(child, graceMs)
  if (code === undefined) {
    child.kill('SIGKILL')
    await exitOf(child, 2000)
  }
  return code
}

/** VmRSS and VmHWM (peak) of a live process, in bytes, from /proc; undefined where /proc is not there. */
export function procMemory(pid) {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8')
    const kb = (name) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? Number.NaN) * 1024
    return { rss: kb('VmRSS'), peak: kb('VmHWM') }
  } catch {
    return undefined
  }
}
