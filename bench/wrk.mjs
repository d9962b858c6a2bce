// The load side of bench/runtimes.mjs: wrk on its own core when it is installed (`apt-get install wrk`),
// else autocannon in this process; and the cores a server and the load generator are pinned to.
import { execFileSync, spawn } from 'node:child_process'
import { cpus } from 'node:os'

export const which = (name) => {
  try {
    return execFileSync('sh', ['-c', `command -v ${name}`], { encoding: 'utf8' }).trim() || undefined
  } catch {
    return undefined
  }
}

/** One core for each server and one for the load generator, when the machine has two. */
export const pinning = () => (which('taskset') && cpus().length >= 2 ? { server: ['taskset', '-c', '0'], load: ['taskset', '-c', '1'] } : { server: [], load: [] })

/** One load run: wrk pinned to its core when installed, else autocannon here. */
export async function loadRun(url, { connections, seconds, cookie }) {
  if (which('wrk')) {
    const [command, ...prefix] = [...pinning().load, 'wrk']
    const args = [...prefix, '-t1', `-c${connections}`, `-d${seconds}s`, '--latency', ...(cookie ? ['-H', `Cookie: ${cookie}`] : []), url]
    const out = await new Promise((resolve, reject) => {
      const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'] })
      let text = ''
      child.stdout.setEncoding('utf8').on('data', (chunk) => (text += chunk))
      child.once('error', reject)
      child.once('close', (code) => (code === 0 ? resolve(text) : reject(new Error(`wrk exited ${code}: ${text}`))))
    })
    const ms = (label) => {
      const m = new RegExp(`^\\s*${label}\\s+([\\d.]+)(us|ms|s)`, 'm').exec(out)
      return m ? Number(m[1]) * { us: 0.001, ms: 1, s: 1000 }[m[2]] : undefined
    }
    const requests = Number(/(\d+) requests in/.exec(out)?.[1] ?? 0)
    const non2xx = Number(/Non-2xx or 3xx responses: (\d+)/.exec(out)?.[1] ?? 0)
    const socketErrors = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(out)
    return {
      tool: 'wrk',
      requestsPerSecond: Number(/Requests\/sec:\s+([\d.]+)/.exec(out)?.[1] ?? 0),
      requests,
      p50Ms: ms('50%'),
      p99Ms: ms('99%'),
      non2xx,
      errors: socketErrors ? socketErrors.slice(1).reduce((sum, n) => sum + Number(n), 0) : 0,
    }
  }
  const { default: autocannon } = await import('autocannon')
  const result = await autocannon({ url, connections, duration: seconds, headers: cookie ? { cookie } : {} })
  return {
    tool: 'autocannon',
    requestsPerSecond: result.requests.total / result.duration,
    requests: result.requests.total,
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    non2xx: result.non2xx,
    errors: result.errors + result.timeouts,
  }
}
