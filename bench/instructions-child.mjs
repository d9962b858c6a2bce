// The child of instructions.mjs, run under callgrind by Node, Bun or Deno: warms each case, then for each one
// waits for the parent's go (a file), runs the measured requests and says done (another file), so the parent
// zeroes and dumps callgrind's counts around exactly those requests.
import { existsSync, writeFileSync } from 'node:fs'
import { pathToFileURL } from 'node:url'
import { dist, option } from './lib.mjs'
import { baseCases, roomCases, runRequests } from './inproc-cases.mjs'

const argv = globalThis.Deno ? ['', '', ...globalThis.Deno.args] : process.argv
const dir = option(argv, 'dir')
const requests = Number(option(argv, 'requests', '1000'))
const warm = Number(option(argv, 'warm', '3000'))
const inFlight = Number(option(argv, 'in-flight', '50'))
const turns = argv.includes('--turns')
const before = option(argv, 'before', undefined)
const fromBefore = (path) => import(pathToFileURL(`${before.replace(/\/$/, '')}/${path}`).href)
const all = { ...baseCases, ...(await roomCases(dist)), ...(before ? await roomCases(fromBefore, '@before') : {}) }
const cases = option(argv, 'cases').split(',')
const rounds = Number(option(argv, 'rounds', '3'))

/** Resolves once `file` exists; the timer keeps the runtime waking up, so callgrind reads its commands. */
const waitFor = (file) => new Promise((resolve) => {
  const timer = setInterval(() => {
    if (existsSync(file)) resolve(clearInterval(timer))
  }, 5)
})

for (const c of cases) await runRequests(all[c], warm, inFlight, turns)
const runs = Array.from({ length: rounds }, (_, r) => (r % 2 ? [...cases].reverse() : cases)).flat()
for (const [i, c] of runs.entries()) {
  writeFileSync(`${dir}/ready.${i}`, c)
  await waitFor(`${dir}/go.${i}`)
  await runRequests(all[c], requests, inFlight, turns)
  writeFileSync(`${dir}/done.${i}`, c)
  await waitFor(`${dir}/dumped.${i}`)
}
