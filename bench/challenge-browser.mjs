// What proof of work costs a real browser: Debian's Chromium (headless, playwright-core) runs the queue
// page's own solver — the Web Worker source the room serves (dist/src/challenge/solver.js), SHA-256 through
// Web Crypto in batches — on fresh signed challenges at each difficulty, timed from `new Worker` to the
// answer (what a user waits). Also the hash rate. Prints a BENCH_RESULT line.
//
//   node bench/challenge-browser.mjs [--quick] [--difficulties 8,12,14,16,18,20]
import { createServer } from 'node:http'
import { createRequire } from 'node:module'
import { dist, flag, median, option, printResult, root, round } from './lib.mjs'

// playwright-core is one of the test-only tools installed in test/runtimes/ (npm run test:runtimes).
const { chromium } = createRequire(`${root}test/runtimes/package.json`)('playwright-core')

const quick = flag(process.argv, 'quick')
const difficulties = option(process.argv, 'difficulties', quick ? '8,12,14' : '8,12,14,16,18,20').split(',').map(Number)
/** Runs per difficulty: enough that the median and the 90th percentile mean something, bounded in time. */
const runsFor = (bits) => (quick ? 5 : bits <= 14 ? 30 : bits <= 16 ? 20 : bits <= 18 ? 12 : 8)

const { WORKER_SOURCE } = await dist('src/challenge/solver.js')
const { issueChallenge } = await dist('src/challenge/signed-challenge.js')
const { deriveChallengeKey } = await dist('src/challenge/crypto.js')
const key = await deriveChallengeKey('bench-secret-0123456789abcdef0123456789abcdef')

const server = createServer((_req, res) => {
  res.writeHead(200, { 'content-type': 'text/html' })
  res.end('<!doctype html><title>solver</title>')
})
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve))
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--no-first-run'],
})
const page = await browser.newPage()
await page.goto(`http://127.0.0.1:${server.address().port}/`)
const version = browser.version()

const solveOnce = (challenge, difficulty) =>
  page.evaluate(
    ({ src, c, d }) =>
      new Promise((resolve) => {
        const started = performance.now()
        const worker = new Worker(URL.createObjectURL(new Blob([src], { type: 'text/javascript' })))
        worker.onmessage = (e) => {
          worker.terminate()
          resolve({ ms: performance.now() - started, counter: Number(String(e.data).split(':').at(-1)) })
        }
        worker.postMessage({ c, d })
      }),
    { src: WORKER_SOURCE, c: challenge, d: difficulty },
  )

const rows = []
for (const bits of difficulties) {
  const times = []
  let hashes = 0
  for (let i = 0; i < runsFor(bits); i++) {
    const challenge = await issueChallenge({ roomId: 'bench', now: Date.now(), waitingUsers: 0, key }, bits, 120)
    const { ms, counter } = await solveOnce(challenge, bits)
    times.push(ms)
    hashes += counter + 1
  }
  const sorted = [...times].sort((a, b) => a - b)
  const totalSeconds = times.reduce((a, b) => a + b, 0) / 1000
  const row = {
    difficulty: bits,
    runs: times.length,
    expectedHashes: 2 ** bits,
    medianMs: round(median(times), 0),
    p90Ms: round(sorted[Math.min(sorted.length - 1, Math.floor(0.9 * sorted.length))], 0),
    maxMs: round(sorted.at(-1), 0),
    hashesPerSecond: Math.round(hashes / totalSeconds),
  }
  rows.push(row)
  console.log(`difficulty ${String(bits).padStart(2)}: median ${row.medianMs} ms, p90 ${row.p90Ms} ms, max ${row.maxMs} ms over ${row.runs} runs (${row.hashesPerSecond.toLocaleString('en')} hashes/s)`)
}
await browser.close()
server.close()
printResult({ browser: `Chromium ${version}`, rows })
