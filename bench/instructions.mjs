// Instructions per request of the flood-path cases, counted by valgrind's callgrind in process (`app.fetch`,
// as inproc.mjs): a figure a busy machine does not change, for comparing builds and runtimes when CPU time
// is too noisy. Every thread counts (the JIT's and GC's helpers too), start-up and warm-up do not: the child
// (instructions-child.mjs) warms every case, then the counts are zeroed and dumped around each case's run.
// Absolute counts are valgrind's and not a CPU's µs; compare cases and builds, in one run.
// On V8 the rounds still differ (Node, 10,000 warm-up requests: bare 151k–284k a request, admitted 378k–914k):
// a function optimised late and a major GC land in one round, so the figure is the lowest of the rounds, and
// only differences well beyond the spread of the rounds printed beside it mean anything. Slow: about half an
// hour for six cases × three rounds on a busy machine.
//
//   node bench/instructions.mjs [--runtime node|bun|deno] [--cases bare,empty,admitted,new,queued,too-early]
//                               [--requests 1000] [--rounds 3] [--warm 3000] [--in-flight 50] [--turns] [--before /tmp/old/dist]
//   (--turns: a turn of the event loop per request and worker, as inproc.mjs --turns)
//   BENCH_DIST=/tmp/patched node bench/instructions.mjs        (another build)
//   BENCH_KEEP=/some/dir …   (keeps each dump: `callgrind_annotate --inclusive=yes` shows where they go)
import { spawn, execFileSync } from 'node:child_process'
import { copyFileSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { benchDir, option, sleep } from './lib.mjs'
import { runtimeBinary } from './runtimes.mjs'

const argv = process.argv
const runtime = option(argv, 'runtime', 'node')
const requests = option(argv, 'requests', '1000')
const before = option(argv, 'before', undefined)
const roomCases = ['admitted', 'new', 'queued', 'too-early']
const asked = option(argv, 'cases', `bare,empty,${roomCases.join(',')}`).split(',')
const cases = before ? asked.flatMap((c) => (roomCases.includes(c) ? [c, `${c}@before`] : [c])) : asked
const rounds = Number(option(argv, 'rounds', '3'))
const dir = mkdtempSync(join(tmpdir(), 'wr-instr-'))

const script = `${benchDir}instructions-child.mjs`
const childArgs = ['--dir', dir, '--cases', cases.join(','), '--requests', requests, '--rounds', String(rounds), '--warm', option(argv, 'warm', '3000'),
  '--in-flight', option(argv, 'in-flight', '50'), ...(argv.includes('--turns') ? ['--turns'] : []), ...(before ? ['--before', before] : [])]
const command = runtime === 'node' ? [process.execPath, script] : runtime === 'bun' ? [runtimeBinary('bun'), script] : [runtimeBinary('deno'), 'run', '-A', script]
const child = spawn('valgrind', ['--tool=callgrind', '--smc-check=all-non-file', `--callgrind-out-file=${dir}/cg.out`, ...command, ...childArgs], {
  stdio: ['ignore', 'inherit', 'inherit'],
})
const exited = new Promise((resolve) => child.on('exit', resolve))

const control = (flag) => execFileSync('callgrind_control', [flag, String(child.pid)], { stdio: 'ignore' })
const until = async (file) => {
  while (!existsSync(file)) {
    if (child.exitCode !== null) throw new Error(`the child exited (${child.exitCode}) before ${file}`)
    await sleep(50)
  }
}

// Rounds in alternating order (A B … then … B A); the lowest of each case's rounds is its figure, since what
// adds to a round (a function optimised late, a major GC) only adds.
const runs = Array.from({ length: rounds }, (_, r) => (r % 2 ? [...cases].reverse() : cases)).flat()
const counts = Object.fromEntries(cases.map((c) => [c, []]))
for (const [i, c] of runs.entries()) {
  await until(`${dir}/ready.${i}`)
  control('-z')
  writeFileSync(`${dir}/go.${i}`, '')
  await until(`${dir}/done.${i}`)
  control('-d')
  const file = readdirSync(dir).filter((name) => name.startsWith('cg.out')).sort((a, b) => b.length - a.length || b.localeCompare(a))[0]
  if (process.env.BENCH_KEEP) copyFileSync(join(dir, file), join(process.env.BENCH_KEEP, `${runtime}-${c.replace(/\W+/g, '-')}.callgrind`))
  counts[c].push(Number(readFileSync(join(dir, file), 'utf8').match(/^(?:totals|summary): (\d+)/m)[1]) / Number(requests))
  rmSync(join(dir, file))
  writeFileSync(`${dir}/dumped.${i}`, '')
}
await exited
const rows = Object.fromEntries(cases.map((c) => [c, Math.min(...counts[c])]))
rmSync(dir, { recursive: true, force: true })
console.log(`${runtime}: instructions per request through app.fetch (callgrind, the lowest of ${rounds} rounds of ${requests} requests)`)
for (const c of cases) console.log(`  ${c.padEnd(16)} ${String(Math.round(rows[c])).padStart(9)}${rows.bare ? `   bare ÷ this ${(rows.bare / rows[c]).toFixed(2)}` : ''}   rounds ${counts[c].map(Math.round).join(', ')}`)
