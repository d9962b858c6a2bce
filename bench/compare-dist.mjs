// Side by side, in the same alternating rounds: the HTTP cases on dist/ and on another build (a patched
// copy), each against the same bare and empty-middleware baselines. For checking a proposed change to
// src/ before it lands:
//
//   cp -r dist /tmp/patched && (edit /tmp/patched/src/*.js) && node bench/compare-dist.mjs /tmp/patched [--cases admitted,new] [--rounds 3] [--seconds 5]
import { HTTP_CASES, runHttp } from './http.mjs'
import { option, round } from './lib.mjs'

const other = process.argv[2]
if (!other || other.startsWith('--')) {
  console.error('usage: node bench/compare-dist.mjs <other dist dir> [--cases admitted,new] [--rounds 3] [--seconds 5]')
  process.exit(2)
}
const ids = option(process.argv, 'cases', 'admitted,new').split(',')
const cases = [
  ...HTTP_CASES.filter((c) => c.id === 'bare' || c.id === 'empty'),
  ...HTTP_CASES.filter((c) => ids.includes(c.id)).flatMap((c) => [c, { ...c, id: `${c.id}*`, label: `${c.label}, ${other}`, distDir: other }]),
]
const result = await runHttp({ cases, rounds: Number(option(process.argv, 'rounds', '3')), seconds: Number(option(process.argv, 'seconds', '5')) })
console.log(`\ncase                 × bare   per round              server CPU µs/req   crypto/req  coordinator/req`)
for (const r of result.results) {
  console.log(`${r.id.padEnd(20)} ${round(r.ratioToBaseline, 3).toString().padEnd(8)} ${r.ratiosPerRound.join(', ').padEnd(22)} ${round(r.serverCpuMicrosPerRequest, 1).toString().padEnd(19)} ${round(r.perRequest.cryptoCalls, 3).toString().padEnd(11)} ${round(r.perRequest.coordinatorCalls, 3)}`)
}
console.log(JSON.stringify(result.results.map(({ runs, ...rest }) => rest)))
