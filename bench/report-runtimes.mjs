// The issue 16 table (flood path on Node, Bun and Deno) and its targets, from bench/runtimes.mjs's result.
/** Bare req/s in the issue's run, per runtime. */
export const ISSUE_BARE = { node: 77_000, bun: 131_000, deno: 156_000 }

/** Issue 16's targets: ratios to bare (or, for `admitted`, to the empty middleware), per runtime. */
export const RUNTIME_TARGETS = [
  { id: 'queued', over: 'bare', at: 0.5, label: 'cookieless flood vs full room ≥ 0.5× bare' },
  { id: 'new', over: 'bare', at: 0.4, label: 'new users under the limit (memory) ≥ 0.4× bare' },
  { id: 'too-early', over: 'bare', at: 0.6, label: 'queued users checking in too early ≥ 0.6× bare' },
  { id: 'admitted', over: 'empty', at: 0.95, label: 'admitted users ≥ 0.95× an empty middleware' },
]


const fmt = (value, digits = 2) => (value === undefined || value === null || Number.isNaN(value) ? '–' : Number(value).toFixed(digits))
const int = (value) => (value === undefined || value === null || Number.isNaN(value) ? '–' : Math.round(value).toLocaleString('en-US'))
const NAMES = { node: 'Node', bun: 'Bun', deno: 'Deno' }

/** The measured runtimes, in order, with their results. */
const measured = (result) => Object.entries(result?.runtimes ?? {}).filter(([, r]) => r.results)

/** Per runtime and target: the median ratio over rounds, each round's, and whether it is met. */
export function runtimeTargets(result) {
  const verdicts = []
  for (const [runtime, r] of measured(result)) {
    for (const t of RUNTIME_TARGETS) {
      const row = r.results.find((x) => x.id === t.id)
      if (!row) continue
      const value = t.over === 'empty' ? row.ratioToEmpty : row.ratioToBare
      const rounds = t.over === 'empty' ? row.ratiosToEmpty : row.ratiosToBare
      verdicts.push({ runtime, id: t.id, target: t.label, at: t.at, value, rounds, met: value >= t.at })
    }
  }
  return verdicts
}

/** Markdown: the table (issue figure → this run, per runtime), the targets, then per-run detail. */
export function formatRuntimes(result) {
  if (!result || result.error) return `Not measured${result?.error ? `: ${result.error}` : ''}.`
  const runtimes = measured(result)
  const out = []
  // A runtimes table measured on its own (`node bench/runtimes.mjs`) and spliced into latest.json says when.
  if (result.measured) out.push(`Measured on its own: ${result.measured}`, '')
  out.push(
    `Each case's server alone on one core (${result.pinned ? '`taskset -c 0`' : 'not pinned: taskset or a second core missing'}), ` +
      `${result.tool === 'wrk' ? 'wrk on the other core' : 'autocannon (wrk not installed)'}, ${result.connections} connections, ${result.seconds} s per run after ` +
      `${result.warmupSeconds} s of warm-up, ${result.rounds} rounds in alternating order; every figure is the median over rounds of a ratio ` +
      'to bare Hono on the same runtime in the same round. "issue" is the figure reported in issue 16.',
  )
  out.push('')
  const header = ['path', ...runtimes.map(([name, r]) => `${NAMES[name] ?? name} (bare ${int(r.results.find((x) => x.id === 'bare')?.requestsPerSecond)}/s; issue ${int(ISSUE_BARE[name])}/s): issue → now`)]
  const rows = []
  const ids = runtimes[0]?.[1].results.map((x) => x.id).filter((id) => id !== 'bare') ?? []
  for (const id of ids) {
    const label = runtimes[0][1].results.find((x) => x.id === id).label
    rows.push([
      label,
      ...runtimes.map(([name, r]) => {
        const row = r.results.find((x) => x.id === id)
        const issue = row?.issue?.[name]
        return `${issue === undefined ? '–' : `${fmt(issue)}×`} → **${fmt(row?.ratioToBare)}×**`
      }),
    ])
  }
  rows.push([
    'admitted user ÷ empty middleware',
    ...runtimes.map(([name, r]) => {
      const row = r.results.find((x) => x.id === 'admitted')
      const issue = row?.issue?.[name] && r.results.find((x) => x.id === 'empty')?.issue?.[name]
      return `${issue ? `${fmt(row.issue[name] / issue)}×` : '–'} → **${fmt(row?.ratioToEmpty)}×**`
    }),
  ])
  out.push(`| ${header.join(' | ')} |`)
  out.push(`| --- | ${runtimes.map(() => '---:').join(' | ')} |`)
  for (const row of rows) out.push(`| ${row.join(' | ')} |`)
  for (const [name, r] of Object.entries(result.runtimes)) if (r.error) out.push(`\n${NAMES[name] ?? name}: not measured (${r.error}).`)
  out.push('')
  out.push('Targets (issue 16):')
  out.push('')
  for (const v of runtimeTargets(result)) {
    out.push(`- ${NAMES[v.runtime]}: ${v.target}: **${fmt(v.value)}×** (rounds ${v.rounds.map((x) => fmt(x)).join(', ')}) — ${v.met ? 'met' : `**missed**${Math.min(...v.rounds) < v.at && Math.max(...v.rounds) >= v.at ? ' (rounds straddle it)' : ''}`}`)
  }
  out.push('')
  out.push('Per case: median req/s, server CPU per request (all threads), p99 latency, the share of requests that took the path the case is named after, coordinator calls per request.')
  out.push('')
  out.push('| runtime | case | req/s | µs CPU/req | p99 ms | path taken | coordinator calls/req |')
  out.push('| --- | --- | ---: | ---: | ---: | --- | ---: |')
  for (const [name, r] of runtimes) {
    for (const row of r.results) {
      out.push(`| ${NAMES[name]} ${r.version ? `(${r.version})` : ''} | ${row.id} | ${int(row.requestsPerSecond)} | ${fmt(row.serverCpuMicrosPerRequest, 1)} | ${fmt(row.p99Ms, 1)} | ${row.expectedReason ? `${fmt(100 * row.expectedShare, 1)}% \`${row.expectedReason}\`` : '–'} | ${fmt(row.coordinatorCallsPerRequest, 3)} |`)
    }
  }
  const bad = runtimes.flatMap(([name, r]) => r.results.filter((x) => x.errors > 0 || x.unexpectedStatus > 0).map((x) => `${name} ${x.id}: ${x.errors} socket errors, ${x.unexpectedStatus} non-2xx`))
  out.push('')
  out.push(bad.length ? `Errors: ${bad.join('; ')}.` : 'No socket errors and no unexpected statuses.')
  return out.join('\n')
}

/** The standalone proxy's targets (bench/proxy-passthrough.mjs): each row's ratio against its plain proxy. */
export function proxyTargets(proxy, straddle) {
  if (!proxy?.rows) return []
  const at = proxy.target ?? 0.9
  // Rows marked `target` (the proxy as the README recommends it against the runtime's plainest proxy); older
  // results without the mark count every row.
  const rows = proxy.rows.some((row) => 'target' in row) ? proxy.rows.filter((row) => row.target) : proxy.rows
  return rows.map((row) => ({
    target: `standalone proxy ≥ ${at}× a plain pass-through proxy (${row.runtime}, ${row.body} body, ${row.kind}${row.baseline ? ` vs ${row.baseline}` : ''})`,
    measured: `**${fmt(row.ratio)}×** (rounds ${row.rounds.map((x) => fmt(x)).join(', ')})`,
    met: row.ratio >= at,
    note: straddle(row.rounds, at),
  }))
}

/** Markdown: the proxy rows, or why they are missing. */
export function formatProxy(proxy) {
  if (!proxy?.rows) return `Not measured${proxy?.error ? `: ${proxy.error}` : ''}.`
  const s = proxy.settings ?? {}
  const lines = [
    `${s.rounds ?? '?'} rounds × ${s.seconds ?? '?'} s, ${s.connections ?? '?'} connections${s.tool ? `, ${s.tool}` : ''}${s.loadavg ? `, load average ${s.loadavg.join(' ')}` : ''}; ratios to the plain proxy named in "against", same runtime and body, same round, median over rounds. CPU ratio: CPU µs per request of the plain proxy ÷ this server's (the steadier figure on a loaded machine). **Bold**: the target rows.`,
    '',
    '| runtime | body | server | against | plain req/s | req/s | ratio | per round | CPU µs/req plain | CPU µs/req | CPU ratio | p99 ms |',
    '| --- | --- | --- | --- | ---: | ---: | ---: | --- | ---: | ---: | ---: | ---: |',
  ]
  for (const r of proxy.rows) {
    const kind = r.target ? `**${r.kind}**` : r.kind
    lines.push(`| ${r.runtime} | ${r.body} | ${kind} | ${r.baseline ?? 'plain'} | ${int(r.plainRps)} | ${int(r.rps)} | ${fmt(r.ratio)} | ${r.rounds.map((x) => fmt(x)).join(', ')} | ${int(r.plainCpuUs)} | ${int(r.cpuUs)} | ${fmt(r.cpuRatio)} | ${fmt(r.p99Ms, 1)} |`)
  }
  return lines.join('\n')
}
