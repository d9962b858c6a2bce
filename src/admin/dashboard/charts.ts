/**
 * @module
 * The dashboard's charts, as browser JavaScript in a string: hand-written SVG line charts, no library.
 * Four line charts of at most a few hundred points each need axes, lines and a legend — about 80 lines —
 * so a charting library (tens of KB, one more thing to audit and serve air-gapped) would not earn its weight.
 *
 * Every point is also drawn as a `<circle>` carrying its series, time and value (`data-series`, `data-t`,
 * `data-v`), and the plot its scale (`data-max`): the numbers on screen can be read back and checked.
 */
export const CHARTS_JS = `
const SVG_W = 480, SVG_H = 230, PAD = { l: 46, r: 14, t: 26, b: 28 }
const esc = (s) => String(s).replace(/[&<>"']/g, (ch) => '&#' + ch.charCodeAt(0) + ';')

/** A round top for the y axis: 1, 2 or 5 times a power of ten, at least the largest value. */
function niceMax(value) {
  if (!(value > 0)) return 1
  const p = Math.pow(10, Math.floor(Math.log10(value)))
  for (const m of [1, 2, 5, 10]) if (m * p >= value) return m * p
  return 10 * p
}

function fmtTime(ms, spanMs) {
  const d = new Date(ms)
  const hm = d.toISOString().slice(11, 16)
  return spanMs > 36e5 * 24 ? d.toISOString().slice(5, 10) + ' ' + hm : hm
}

/**
 * chart = { title, times: [ms], series: [{ key, label, cls, values: [number|null] }], unit }
 * A series with cls 'limit' is dashed. Nulls break the line (no data in that step).
 */
function renderChart(chart) {
  const { times, series } = chart
  const w = SVG_W - PAD.l - PAD.r, h = SVG_H - PAD.t - PAD.b
  const all = series.flatMap((s) => s.values).filter((v) => typeof v === 'number')
  const max = niceMax(Math.max(0, ...all))
  const t0 = times[0] ?? 0, t1 = times[times.length - 1] ?? 1
  const span = Math.max(1, t1 - t0)
  const x = (t) => PAD.l + (times.length < 2 ? w / 2 : ((t - t0) / span) * w)
  const y = (v) => PAD.t + h - (v / max) * h
  const out = []
  out.push('<svg viewBox="0 0 ' + SVG_W + ' ' + SVG_H + '" role="img" aria-label="' + esc(chart.title) + '" data-max="' + max + '" data-plot="' + [PAD.l, PAD.t, w, h].join(',') + '">')
  out.push('<g class="axis">')
  for (let i = 0; i <= 4; i++) {
    const v = (max * i) / 4, yy = y(v)
    out.push('<line class="gridline" x1="' + PAD.l + '" x2="' + (PAD.l + w) + '" y1="' + yy + '" y2="' + yy + '"/>')
    out.push('<text x="' + (PAD.l - 6) + '" y="' + (yy + 4) + '" text-anchor="end">' + esc(+v.toFixed(2)) + '</text>')
  }
  if (times.length > 0) {
    const ticks = times.length < 2 ? [[t0, 'middle']] : [[t0, 'start'], [t0 + span / 2, 'middle'], [t1, 'end']]
    for (const [t, anchor] of ticks) {
      out.push('<text x="' + x(t) + '" y="' + (SVG_H - 8) + '" text-anchor="' + anchor + '">' + esc(fmtTime(t, span)) + '</text>')
    }
  }
  out.push('</g>')
  series.forEach((s) => {
    const segments = [[]]
    s.values.forEach((v, i) => {
      if (typeof v === 'number') segments[segments.length - 1].push(x(times[i]).toFixed(1) + ',' + y(v).toFixed(1))
      else if (segments[segments.length - 1].length) segments.push([])
    })
    for (const seg of segments) if (seg.length) out.push('<polyline class="' + s.cls + '" data-series="' + s.key + '" points="' + seg.join(' ') + '"/>')
    out.push('<g class="pts">')
    s.values.forEach((v, i) => {
      if (typeof v !== 'number') return
      out.push('<circle class="' + s.cls + '" r="' + (s.cls === 'limit' ? 0 : 2) + '" cx="' + x(times[i]) + '" cy="' + y(v) + '" data-series="' + s.key + '" data-t="' + times[i] + '" data-v="' + v + '"><title>' + esc(s.label + ' ' + v + (chart.unit || '')) + '</title></circle>')
    })
    out.push('</g>')
  })
  if (all.length === 0) out.push('<text class="empty" x="' + (SVG_W / 2) + '" y="' + (SVG_H / 2) + '" text-anchor="middle">no data in this range</text>')
  out.push('<g class="legend">')
  series.forEach((s, i) => {
    const lx = PAD.l + i * 120
    out.push('<rect class="' + s.cls + '" x="' + lx + '" y="8" width="12" height="4"/><text x="' + (lx + 16) + '" y="14">' + esc(s.label) + '</text>')
  })
  out.push('</g></svg>')
  return out.join('')
}
`
