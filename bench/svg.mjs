// Hand-written SVG for the report's bar chart: no dependencies, readable in a browser and on GitHub.

const escape = (text) => String(text).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;')

/**
 * Horizontal bars, two per row (`a` and `b`, e.g. throughput and CPU ratios), values as ratios where 1 is the
 * baseline; `marks` are per-row target ticks ({ at, label }).
 *
 * rows: [{ label, a, b, mark?: { at, label } }]
 */
export function barChart({ title, subtitle, rows, a, b, max = 1.2 }) {
  const left = 300
  const width = 900
  const plot = width - left - 70
  const rowHeight = 38
  const top = 64
  const height = top + rows.length * rowHeight + 56
  const x = (value) => left + (Math.min(Math.max(value, 0), max) / max) * plot
  const parts = []
  parts.push(`<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="system-ui, -apple-system, Segoe UI, sans-serif" font-size="12">`)
  parts.push(`<rect width="${width}" height="${height}" fill="#fff"/>`)
  parts.push(`<text x="16" y="24" font-size="15" font-weight="600">${escape(title)}</text>`)
  if (subtitle) parts.push(`<text x="16" y="44" fill="#555">${escape(subtitle)}</text>`)
  // Grid: every 0.25.
  for (let v = 0; v <= max + 1e-9; v += 0.25) {
    const gx = x(v).toFixed(1)
    parts.push(`<line x1="${gx}" y1="${top - 6}" x2="${gx}" y2="${top + rows.length * rowHeight}" stroke="${Math.abs(v - 1) < 1e-9 ? '#333' : '#e3e3e3'}" stroke-width="1"${Math.abs(v - 1) < 1e-9 ? ' stroke-dasharray="4 3"' : ''}/>`)
    parts.push(`<text x="${gx}" y="${top + rows.length * rowHeight + 16}" text-anchor="middle" fill="#555">${v.toFixed(2)}×</text>`)
  }
  rows.forEach((row, i) => {
    const y = top + i * rowHeight
    parts.push(`<text x="${left - 10}" y="${y + 19}" text-anchor="end">${escape(row.label)}</text>`)
    const bar = (value, offset, color, label) => {
      if (value === undefined || value === null || Number.isNaN(value)) return
      const w = Math.max(1, x(value) - left)
      parts.push(`<rect x="${left}" y="${y + offset}" width="${w.toFixed(1)}" height="13" fill="${color}"><title>${escape(label)}: ${value.toFixed(3)}×</title></rect>`)
      parts.push(`<text x="${(left + w + 4).toFixed(1)}" y="${y + offset + 11}" fill="#333">${value.toFixed(2)}${value > max ? ' →' : ''}</text>`)
    }
    bar(row.a, 4, a.color, a.label)
    bar(row.b, 19, b.color, b.label)
    if (row.mark) {
      const mx = x(row.mark.at).toFixed(1)
      parts.push(`<line x1="${mx}" y1="${y + 1}" x2="${mx}" y2="${y + 35}" stroke="#d62728" stroke-width="2"><title>${escape(row.mark.label)}</title></line>`)
    }
  })
  const ly = height - 18
  parts.push(`<rect x="16" y="${ly - 10}" width="12" height="12" fill="${a.color}"/><text x="34" y="${ly}">${escape(a.label)}</text>`)
  parts.push(`<rect x="300" y="${ly - 10}" width="12" height="12" fill="${b.color}"/><text x="318" y="${ly}">${escape(b.label)}</text>`)
  parts.push(`<line x1="${width - 90}" y1="${ly - 10}" x2="${width - 90}" y2="${ly + 2}" stroke="#d62728" stroke-width="2"/><text x="${width - 82}" y="${ly}">target</text>`)
  parts.push('</svg>')
  return `${parts.join('\n')}\n`
}
