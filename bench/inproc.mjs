// The room's own cost per request, without sockets, on whichever runtime runs this file: each case's app
// (the same as bench/runtime-server.mjs's) answers `app.fetch` with 50 requests in flight, and the figure is
// CPU µs per request over a few alternating rounds, minus nothing — compare the cases with `bare` beside them.
// Steadier than req/s on a shared machine, and it runs on Bun and Deno too (ab.mjs is Node only).
//
//   node bench/inproc.mjs [--cases bare,empty,empty-cookie,admitted,new,queued,too-early] [--rounds 5] [--requests 4000]
//                         [--in-flight 50] [--turns]   (--turns: a turn of the event loop per request and worker, as under a server)
//   bun bench/inproc.mjs …          deno run -A bench/inproc.mjs …
//   BENCH_DIST=/tmp/patched node bench/inproc.mjs        (another build)
//   node bench/inproc.mjs --before /tmp/old/dist          (the room's cases from another build too, as
//                                                          `case@before`, alternating with them in one process)
import { pathToFileURL } from 'node:url'
import { alternatingCpu, dist, median, option, round } from './lib.mjs'
import { baseCases, roomCases, runRequests } from './inproc-cases.mjs'

const argv = globalThis.Deno ? ['', '', ...globalThis.Deno.args] : process.argv
const ROUNDS = Number(option(argv, 'rounds', '5'))
const REQUESTS = Number(option(argv, 'requests', '4000'))
const IN_FLIGHT = Number(option(argv, 'in-flight', '50'))
const TURNS = argv.includes('--turns')
const before = option(argv, 'before', undefined)
const fromBefore = (path) => import(pathToFileURL(`${before.replace(/\/$/, '')}/${path}`).href)
const CASES = {
  ...baseCases,
  ...(await roomCases(dist)),
  ...(before ? await roomCases(fromBefore, '@before') : {}),
}

const run = (request, n) => runRequests(request, n, IN_FLIGHT, TURNS)

const asked = option(argv, 'cases', undefined)?.split(',')
// --cases names the cases; with --before each room case named brings its `@before` twin.
const cases = asked ? Object.keys(CASES).filter((c) => asked.includes(c.replace(/@before$/, ''))) : Object.keys(CASES)
const times = await alternatingCpu(cases, (c, n) => run(CASES[c], n), { rounds: ROUNDS, requests: REQUESTS, warm: REQUESTS / 2 })
const runtime = globalThis.Bun ? `bun ${globalThis.Bun.version}` : globalThis.Deno ? `deno ${globalThis.Deno.version.deno}` : `node ${process.version}`
console.log(`${runtime}: CPU µs per request through app.fetch, ${IN_FLIGHT} in flight${TURNS ? ' (a turn of the event loop each)' : ''} (${ROUNDS} rounds of ${REQUESTS}: median, lowest)`)
for (const c of cases) console.log(`  ${c.padEnd(10)} ${String(round(median(times[c]), 1)).padStart(7)} ${String(round(Math.min(...times[c]), 1)).padStart(7)}   rounds ${times[c].map((t) => round(t, 1)).join(', ')}`)
