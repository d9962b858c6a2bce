/**
 * @module
 * A small hand-written SVG chart: axes with round ticks, lines, dashed reference lines and dots. No
 * dependencies, so the simulator's charts render anywhere a browser does.
 */

export interface ChartSeries {
  name: string
  color: string
  /** `line` joins the points; `dashed` is a dashed line (limits); `dots` draws one small circle per point. */
  kind: 'line' | 'dashed' | 'dots'
  points: readonly (readonly [number, number])[]
}

export interface ChartOptions {
  title: string
  xLabel: string
  yLabel: string
  series: readonly ChartSeries[]
  width?: number
  height?: number
}

const MARGIN = { top: 40, right: 20, bottom: 50, left: 64 }

const escape = (text: string): string =>
  text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;')

const fmt = (value: number): string => (Number.isInteger(value) ? String(value) : value.toFixed(Math.abs(value) < 1 ? 2 : 1))

/** About `count` round tick values from 0 to at least `max` (steps of 1, 2 or 5 × 10^n). */
export function niceTicks(max: number, count = 5): number[] {
  if (!(max > 0)) return [0, 1]
  const raw = max / count
  const magnitude = 10 ** Math.floor(Math.log10(raw))
  const step = [1, 2, 5, 10].map((f) => f * magnitude).find((s) => s >= raw) ?? 10 * magnitude
  const ticks: number[] = []
  for (let value = 0; value < max + step * 0.999; value += step) ticks.push(Math.round(value / step) * step)
  return ticks
}

export function renderChart(options: ChartOptions): string {
  const width = options.width ?? 800
  const height = options.height ?? 400
  const plotWidth = width - MARGIN.left - MARGIN.right
  const plotHeight = height - MARGIN.top - MARGIN.bottom
  let xMax = 0
  let yMax = 0
  for (const series of options.series) {
    for (const [x, y] of series.points) {
      if (x > xMax) xMax = x
      if (y > yMax) yMax = y
    }
  }
  const xTicks = niceTicks(xMax)
  // Headroom above the highest point, so a line running along a limit stays clear of the legend.
  const yTicks = niceTicks(yMax * 1.15)
  const xEnd = xTicks[xTicks.length - 1]!
  const yEnd = yTicks[yTicks.length - 1]!
  const px = (x: number) => MARGIN.left + (x / xEnd) * plotWidth
  const py = (y: number) => MARGIN.top + plotHeight - (y / yEnd) * plotHeight
  const r = (v: number) => Math.round(v * 10) / 10

  const out: string[] = []
  out.push(`<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="sans-serif" font-size="12">`)
  out.push(`<rect width="${width}" height="${height}" fill="white"/>`)
  out.push(`<text x="${width / 2}" y="22" text-anchor="middle" font-size="15" font-weight="bold">${escape(options.title)}</text>`)
  for (const y of yTicks) {
    out.push(`<line x1="${MARGIN.left}" x2="${width - MARGIN.right}" y1="${r(py(y))}" y2="${r(py(y))}" stroke="#e5e5e5"/>`)
    out.push(`<text x="${MARGIN.left - 6}" y="${r(py(y)) + 4}" text-anchor="end">${fmt(y)}</text>`)
  }
  for (const x of xTicks) {
    out.push(`<line x1="${r(px(x))}" x2="${r(px(x))}" y1="${MARGIN.top + plotHeight}" y2="${MARGIN.top + plotHeight + 5}" stroke="#333"/>`)
    out.push(`<text x="${r(px(x))}" y="${MARGIN.top + plotHeight + 18}" text-anchor="middle">${fmt(x)}</text>`)
  }
  out.push(`<line x1="${MARGIN.left}" x2="${MARGIN.left}" y1="${MARGIN.top}" y2="${MARGIN.top + plotHeight}" stroke="#333"/>`)
  out.push(`<line x1="${MARGIN.left}" x2="${width - MARGIN.right}" y1="${MARGIN.top + plotHeight}" y2="${MARGIN.top + plotHeight}" stroke="#333"/>`)
  out.push(`<text x="${MARGIN.left + plotWidth / 2}" y="${height - 10}" text-anchor="middle">${escape(options.xLabel)}</text>`)
  out.push(`<text transform="translate(16 ${MARGIN.top + plotHeight / 2}) rotate(-90)" text-anchor="middle">${escape(options.yLabel)}</text>`)

  for (const series of options.series) {
    if (series.kind === 'dots') {
      out.push(`<g fill="${series.color}" fill-opacity="0.45">`)
      for (const [x, y] of series.points) out.push(`<circle cx="${r(px(x))}" cy="${r(py(y))}" r="1.6"/>`)
      out.push('</g>')
    } else if (series.points.length > 0) {
      const path = series.points.map(([x, y], i) => `${i === 0 ? 'M' : 'L'}${r(px(x))} ${r(py(y))}`).join('')
      const dash = series.kind === 'dashed' ? ' stroke-dasharray="6 4"' : ''
      out.push(`<path d="${path}" fill="none" stroke="${series.color}" stroke-width="1.8"${dash}/>`)
    }
  }
  const legendX = width - MARGIN.right - 160
  out.push(`<rect x="${legendX - 6}" y="${MARGIN.top - 6}" width="166" height="${options.series.length * 16 + 8}" fill="white" fill-opacity="0.85"/>`)
  options.series.forEach((series, i) => {
    const y = MARGIN.top + 8 + i * 16
    const x = legendX
    out.push(`<rect x="${x}" y="${y - 6}" width="12" height="4" fill="${series.color}"/>`)
    out.push(`<text x="${x + 18}" y="${y}">${escape(series.name)}</text>`)
  })
  out.push('</svg>')
  return out.join('\n')
}
