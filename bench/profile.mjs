// CPU profile of a server under load (`node --cpu-prof`), reduced to the functions with the most self time
// and to where that time goes (our code, hono, the Node adapter, jose, Node's internals, GC).
//
//   node bench/profile.mjs [--case admitted|new|queued|too-early|empty|bare] [--seconds 5] [--keep]
//
// Only the samples of the measured run count (start-up and warm-up are left out). `--keep` copies the whole
// .cpuprofile to bench/results/profiles/ for Chrome DevTools or speedscope (large: do not commit it).
import { mkdtemp, readdir, readFile, rm, mkdir, copyFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { flag, option, resultsDir, round } from './lib.mjs'
import { avoidMinuteTurn, load, mintCookie, startServer } from './http.mjs'

const SERVER_OF = {
  admitted: { server: 'room-open', cookie: true },
  new: { server: 'room-open' },
  queued: { server: 'room-full', fill: true },
  'too-early': { server: 'room-full', fill: true, cookie: true },
  empty: { server: 'empty' },
  bare: { server: 'bare' },
}

/** Where a sampled function lives, for the breakdown. */
function categoryOf(url, name) {
  if (name === '(garbage collector)') return 'GC'
  if (name === '(program)' || name === '(idle)' || name === '(root)') return name
  if (/\/dist\/(src|adapters)\//.test(url)) return 'hono-waiting-room (dist/)'
  if (/node_modules\/hono\//.test(url)) return 'hono'
  if (/node_modules\/@hono\/node-server\//.test(url)) return '@hono/node-server'
  if (/node_modules\/jose\//.test(url)) return 'jose'
  if (url.startsWith('node:') || url === '') return 'Node internals and natives'
  if (/node_modules\//.test(url)) return 'other packages'
  return 'other'
}

/**
 * Reduces a .cpuprofile to self time per function and per category, idle excluded, counting only samples
 * taken from `fromMicros` on (the profiler's clock), so start-up and warm-up are left out.
 */
export function reduceProfile(profile, top = 15, fromMicros = -Infinity) {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]))
  const self = new Map()
  const categories = new Map()
  let total = 0
  // Sample i was taken at startTime + timeDeltas[0..i].
  const counted = new Array(profile.samples.length)
  for (let i = 0, at = profile.startTime; i < profile.samples.length; i++) {
    at += profile.timeDeltas[i] ?? 0
    counted[i] = at >= fromMicros
  }
  for (let i = 0; i < profile.samples.length; i++) {
    if (!counted[i]) continue
    const node = byId.get(profile.samples[i])
    const dt = profile.timeDeltas[i] ?? 0
    const { functionName, url, lineNumber } = node.callFrame
    if (functionName === '(idle)') continue
    total += dt
    const file = url.replace(/^file:\/\//, '').replace(/^.*\/(node_modules|dist)\//, '$1/')
    const key = `${functionName || '(anonymous)'}\t${file}${url ? `:${lineNumber + 1}` : ''}`
    self.set(key, (self.get(key) ?? 0) + dt)
    const category = categoryOf(url, functionName)
    categories.set(category, (categories.get(category) ?? 0) + dt)
  }
  // Inclusive time of our own functions (dist/src, dist/adapters): every sample whose stack passes through
  // them. Synchronous stretches only: an async function's time after an await is not under its frame.
  const parent = new Map()
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id)
  const inclusive = new Map()
  for (let i = 0; i < profile.samples.length; i++) {
    if (!counted[i]) continue
    const dt = profile.timeDeltas[i] ?? 0
    const seen = new Set()
    for (let id = profile.samples[i]; id !== undefined; id = parent.get(id)) {
      const { functionName, url, lineNumber } = byId.get(id).callFrame
      if (functionName === '(idle)') break
      if (!/\/dist\/(src|adapters)\//.test(url)) continue
      const key = `${functionName || '(anonymous)'}\t${url.replace(/^.*\/dist\//, 'dist/')}:${lineNumber + 1}`
      if (seen.has(key)) continue
      seen.add(key)
      inclusive.set(key, (inclusive.get(key) ?? 0) + dt)
    }
  }
  const share = (us) => round((100 * us) / total, 1)
  return {
    busyMs: round(total / 1000, 0),
    top: [...self]
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([key, us]) => {
        const [fn, where] = key.split('\t')
        return { function: fn, where, selfMs: round(us / 1000, 1), selfPercent: share(us) }
      }),
    ours: [...inclusive]
      .sort((a, b) => b[1] - a[1])
      .slice(0, 10)
      .map(([key, us]) => {
        const [fn, where] = key.split('\t')
        return { function: fn, where, inclusivePercent: share(us) }
      }),
    categories: [...categories].sort((a, b) => b[1] - a[1]).map(([category, us]) => ({ category, selfPercent: share(us) })),
  }
}

/** Profiles the server of `which` under `seconds` of load; resolves with the reduced profile. */
export async function profileCase(which, { seconds = 5, connections = 50, keep = false } = {}) {
  const spec = SERVER_OF[which]
  if (!spec) throw new Error(`unknown case ${which} (known: ${Object.keys(SERVER_OF).join(', ')})`)
  const dir = await mkdtemp(join(tmpdir(), 'wr-profile-'))
  const server = await startServer(spec.server, { execArgv: ['--cpu-prof', '--cpu-prof-dir', dir] })
  try {
    if (spec.fill) await mintCookie(server.url) // the room's one place
    await avoidMinuteTurn((seconds + 2) * 1000)
    const cookie = spec.cookie ? (await mintCookie(server.url)).cookie : undefined
    await load(server.url, { connections, seconds: 2, cookie }) // warm-up: left out of the figures below
    const from = await server.mark()
    const result = await load(server.url, { connections, seconds, cookie })
    await server.stop()
    const file = (await readdir(dir)).find((name) => name.endsWith('.cpuprofile'))
    if (!file) throw new Error('no .cpuprofile written')
    if (keep) {
      await mkdir(join(resultsDir, 'profiles'), { recursive: true })
      await copyFile(join(dir, file), join(resultsDir, 'profiles', `${which}.cpuprofile`))
    }
    const reduced = reduceProfile(JSON.parse(await readFile(join(dir, file), 'utf8')), 15, from)
    return { case: which, requestsPerSecond: round(result.requests.total / result.duration, 0), ...reduced }
  } finally {
    await server.stop()
    await rm(dir, { recursive: true, force: true })
  }
}

export function formatProfile(p) {
  const lines = [`${p.case}: ${p.requestsPerSecond} req/s under the profiler; ${p.busyMs} ms of busy samples`]
  for (const t of p.top) lines.push(`  ${String(t.selfPercent).padStart(5)}%  ${t.function}  ${t.where}`)
  lines.push(`  by origin: ${p.categories.map((c) => `${c.category} ${c.selfPercent}%`).join(', ')}`)
  lines.push(`  our functions, inclusive: ${p.ours.map((o) => `${o.function} ${o.inclusivePercent}%`).join(', ')}`)
  return lines.join('\n')
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const which = option(process.argv, 'case', 'admitted')
  const p = await profileCase(which, { seconds: Number(option(process.argv, 'seconds', '5')), keep: flag(process.argv, 'keep') })
  console.log(formatProfile(p))
}
