/**
 * @module
 * A minimal writer for the Prometheus text exposition format, version 0.0.4: `# HELP` and `# TYPE` lines,
 * then one sample per line. No client library: the admin API only ever writes a few dozen samples.
 */

/** The Content-Type scrapers expect for this format. */
export const PROMETHEUS_CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8'

export type MetricType = 'counter' | 'gauge' | 'histogram'

export interface Sample {
  /** Appended to the family's name: a histogram's `_bucket`, `_sum` and `_count`. */
  suffix?: '_bucket' | '_sum' | '_count'
  labels?: Record<string, string>
  value: number
}

export interface MetricFamily {
  /** Metric name; counters end in `_total` (the 0.0.4 format puts the full name on the TYPE line too). */
  name: string
  help: string
  type: MetricType
  samples: Sample[]
}

const METRIC_NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/
const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*$/

/** HELP text escapes only backslash and line feed; label values also escape the double quote. */
const escapeHelp = (text: string): string => text.replace(/\\/g, '\\\\').replace(/\n/g, '\\n')
const escapeLabelValue = (text: string): string => text.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n')

function formatValue(value: number): string {
  if (Number.isNaN(value)) return 'NaN'
  if (value === Number.POSITIVE_INFINITY) return '+Inf'
  if (value === Number.NEGATIVE_INFINITY) return '-Inf'
  return String(value) // JS number text (`1e+21` included) is what Go's ParseFloat reads
}

function formatLabels(labels: Record<string, string> | undefined): string {
  if (!labels) return ''
  const pairs: string[] = []
  for (const [name, value] of Object.entries(labels)) {
    if (!LABEL_NAME.test(name) || name.startsWith('__')) throw new Error(`[hono-waiting-room] [prometheus] invalid label name "${name}"`)
    pairs.push(`${name}="${escapeLabelValue(value)}"`)
  }
  return pairs.length === 0 ? '' : `{${pairs.join(',')}}`
}

/** Renders metric families as one exposition; throws on an invalid metric or label name (a bug, not input). */
export function renderPrometheus(families: readonly MetricFamily[]): string {
  const lines: string[] = []
  for (const family of families) {
    if (!METRIC_NAME.test(family.name)) throw new Error(`[hono-waiting-room] [prometheus] invalid metric name "${family.name}"`)
    lines.push(`# HELP ${family.name} ${escapeHelp(family.help)}`)
    lines.push(`# TYPE ${family.name} ${family.type}`)
    for (const sample of family.samples) lines.push(`${family.name}${sample.suffix ?? ''}${formatLabels(sample.labels)} ${formatValue(sample.value)}`)
  }
  return lines.join('\n') + '\n'
}
