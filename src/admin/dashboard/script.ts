/**
 * @module
 * The dashboard's browser script, as a string (no build step): login, polling, charts, settings, events,
 * suspend/resume and the queue page preview. It talks to the admin API beside it (relative URLs), with the
 * token from the login form kept in `sessionStorage` (gone with the tab, never a cookie a CSRF could ride).
 * Longer than 250 lines because it is one browser program in one string; each function in it stays small.
 */
import { CHARTS_JS } from './charts.ts'

export const DASHBOARD_JS = `${CHARTS_JS}
const KEY = 'hono-waiting-room.admin-token'
const BASE = location.pathname.endsWith('/') ? location.pathname : location.pathname + '/'
const $ = (sel) => document.querySelector(sel)
const state = { token: sessionStorage.getItem(KEY), timer: 0, serverTo: 0, polls: 0, samples: [], overrides: {} }
const POLL_MS = Number(document.body.dataset.pollMs) || 5000

async function api(path, init = {}) {
  const headers = Object.assign({ Authorization: 'Bearer ' + state.token }, init.headers || {})
  if (init.body !== undefined) headers['Content-Type'] = 'application/json'
  const res = await fetch(BASE + path, Object.assign({}, init, { headers, cache: 'no-store', credentials: 'omit' }))
  if (res.status === 401) { logout('That token was refused.'); throw new Error('unauthorized') }
  return res
}

function logout(message) {
  sessionStorage.removeItem(KEY)
  state.token = null
  clearTimeout(state.timer)
  $('#app').hidden = true
  $('#login').hidden = false
  $('#login-error').textContent = message || ''
}

async function login(event) {
  event.preventDefault()
  state.token = $('#token').value.trim()
  $('#login-error').textContent = ''
  const res = await fetch(BASE + 'status', { headers: { Authorization: 'Bearer ' + state.token }, cache: 'no-store', credentials: 'omit' })
  if (!res.ok) { state.token = null; $('#login-error').textContent = res.status === 401 ? 'That token was refused.' : 'The API answered ' + res.status + '.'; return }
  sessionStorage.setItem(KEY, state.token)
  $('#token').value = ''
  start()
}

function start() {
  $('#login').hidden = true
  $('#app').hidden = false
  loadSettings()
  loadEvents()
  showPreview()
  refresh()
}

/** One poll: status, then history; schedules the next. */
async function refresh() {
  clearTimeout(state.timer)
  try {
    const status = await (await api('status')).json()
    showStatus(status)
    await loadAnalytics(status)
    if (++state.polls % 6 === 0) loadEvents()
    $('#updated').textContent = 'updated ' + new Date().toLocaleTimeString()
    $('#updated').dataset.polls = String(state.polls)
  } catch (error) {
    if (!state.token) return
    $('#updated').textContent = 'update failed: ' + error.message
  }
  state.timer = setTimeout(refresh, POLL_MS)
}

function showStatus(s) {
  $('#status').textContent = s.status.replace(/_/g, ' ')
  $('#status').dataset.status = s.status
  $('#active').textContent = s.estimatedTotalActiveUsers
  $('#queued').textContent = s.estimatedQueuedUsers
  $('#maxwait').textContent = s.maxEstimatedTimeMinutes
  const suspended = s.status === 'suspended'
  const button = $('#suspend')
  button.textContent = suspended ? 'Resume' : 'Suspend'
  button.className = suspended ? '' : 'danger'
  button.dataset.suspended = String(suspended)
  state.samples.push({ t: Date.now(), active: s.estimatedTotalActiveUsers, queued: s.estimatedQueuedUsers })
  if (state.samples.length > 720) state.samples.shift()
}

function rangeMinutes() { return Number($('#range').value) }

async function loadAnalytics() {
  const minutes = rangeMinutes()
  const step = Math.max(1, Math.ceil(minutes / 240))
  let query = 'analytics?step=' + step
  // The range ends at the server's clock (the last answer's \`to\`), never this browser's.
  if (state.serverTo) query += '&from=' + (state.serverTo - minutes * 60000)
  const res = await api(query, { headers: { Accept: 'application/json' } })
  if (res.status === 501 || res.status === 404) return drawFromSamples()
  const data = await res.json()
  if (!res.ok) { $('#history-note').textContent = (data.issues || []).map((i) => i.path + ': ' + i.message).join('; ') || data.message; return }
  state.serverTo = Date.parse(data.to)
  $('#history-note').textContent = ''
  drawAnalytics(data)
}

function drawAnalytics(data) {
  const pts = data.points
  const times = pts.map((p) => Date.parse(p.time))
  const col = (f) => pts.map(f)
  const perMinute = (v) => (typeof v === 'number' ? +(v / data.stepMinutes).toFixed(2) : null)
  draw('#chart-active', { title: 'Active users vs limit', times, series: [
    { key: 'activeUsers', label: 'active users', cls: 's0', values: col((p) => p.activeUsers) },
    { key: 'limit', label: 'limit', cls: 'limit', values: col((p) => p.limit) }] })
  draw('#chart-queue', { title: 'Queue length', times, series: [
    { key: 'waitingUsers', label: 'waiting users', cls: 's1', values: col((p) => p.waitingUsers) }] })
  draw('#chart-admissions', { title: 'Admissions per minute vs limit', times, series: [
    { key: 'admissions', label: 'admitted / min', cls: 's0', values: col((p) => perMinute(p.admissions)) },
    { key: 'newUsersPerMinute', label: 'limit / min', cls: 'limit', values: col((p) => p.newUsersPerMinute) }] })
  draw('#chart-wait', { title: 'Wait before admission (seconds)', unit: ' s', times, series: [
    { key: 'waitP50', label: 'p50', cls: 's0', values: col((p) => p.wait.p50) },
    { key: 'waitP90', label: 'p90', cls: 's1', values: col((p) => p.wait.p90) },
    { key: 'waitP99', label: 'p99', cls: 's2', values: col((p) => p.wait.p99) }] })
  const t = data.totals
  $('#totals').textContent = 'In range: ' + t.admissions + ' admitted, ' + t.arrivals + ' arrived, peak queue ' + t.peakWaitingUsers +
    (t.wait.max != null ? ', longest wait ' + t.wait.max + ' s' : '')
}

/** Without history (a coordinator that keeps none): this tab's own samples of /status. */
function drawFromSamples() {
  $('#history-note').textContent = 'This room keeps no history: the charts show what this tab has seen since it opened.'
  const times = state.samples.map((s) => s.t)
  draw('#chart-active', { title: 'Active users', times, series: [{ key: 'activeUsers', label: 'active users', cls: 's0', values: state.samples.map((s) => s.active) }] })
  draw('#chart-queue', { title: 'Queue length', times, series: [{ key: 'waitingUsers', label: 'waiting users', cls: 's1', values: state.samples.map((s) => s.queued) }] })
  draw('#chart-admissions', { title: 'Admissions', times: [], series: [] })
  draw('#chart-wait', { title: 'Wait', times: [], series: [] })
}

function draw(sel, chart) { $(sel).innerHTML = renderChart(chart) }

async function loadSettings() {
  const body = await (await api('settings')).json()
  state.overrides = body.overrides
  for (const input of document.querySelectorAll('#settings [name]')) {
    const name = input.name
    const value = body.overrides[name]
    input.value = value === undefined || value === null ? '' : String(value)
    const effective = body.settings[name]
    const hint = document.querySelector('[data-effective-for="' + name + '"]')
    if (hint) hint.textContent = 'in force: ' + effective
    if (input.tagName === 'INPUT') input.placeholder = String(effective)
  }
}

function fieldValue(input) {
  const v = input.value.trim()
  if (v === '') return null
  if (input.dataset.type === 'integer') return /^-?\\d+$/.test(v) ? Number(v) : v
  if (input.dataset.type === 'boolean') return v === 'true'
  if (input.dataset.type === 'number-enum') return Number(v)
  return v
}

async function saveSettings(event) {
  event.preventDefault()
  const patch = {}
  for (const input of document.querySelectorAll('#settings [name]')) {
    const value = fieldValue(input)
    if ((state.overrides[input.name] ?? null) !== value) patch[input.name] = value
  }
  await patchSettings(patch, '#settings-result')
}

async function patchSettings(patch, resultSel) {
  for (const el of document.querySelectorAll('[data-error-for]')) el.textContent = ''
  $(resultSel).textContent = 'saving…'
  const res = await api('settings', { method: 'PATCH', body: JSON.stringify(patch) })
  const body = await res.json()
  if (res.status === 400) {
    for (const issue of body.issues) {
      const el = document.querySelector('[data-error-for="' + issue.path + '"]') || $('#settings-error')
      el.textContent = issue.message
    }
    $(resultSel).textContent = 'not saved'
    return false
  }
  if (!res.ok) { $(resultSel).textContent = body.message || 'failed (' + res.status + ')'; return false }
  $(resultSel).textContent = 'saved'
  await loadSettings()
  refresh()
  return true
}

async function toggleSuspend() {
  const button = $('#suspend')
  button.disabled = true
  try { await patchSettings({ suspended: button.dataset.suspended !== 'true' }, '#suspend-result') } finally { button.disabled = false }
}

async function loadEvents() {
  const { events } = await (await api('events')).json()
  const rows = await Promise.all(events.slice(0, 50).map(async (e) => {
    const res = await api('events/' + encodeURIComponent(e.id) + '/report')
    return { e, report: res.ok ? await res.json() : null }
  }))
  const cell = (v) => (v === null || v === undefined ? '–' : String(v))
  const iso = (ms) => new Date(ms).toISOString().replace('T', ' ').slice(0, 16)
  const tbody = $('#events tbody')
  tbody.replaceChildren(...rows.map(({ e, report: r }) => {
    const tr = document.createElement('tr')
    tr.dataset.eventId = e.id
    const values = [e.name || e.id, iso(e.eventStartTime) + ' → ' + iso(e.eventEndTime), r ? cell(r.peakQueue) : '–',
      r ? cell(r.maxWaitSeconds) : '–', r ? cell(r.admitted) : '–', r ? cell(r.timeToDrainSeconds) : '–']
    for (const v of values) { const td = document.createElement('td'); td.textContent = v; tr.append(td) }
    return tr
  }))
  $('#events-empty').hidden = events.length > 0
}

async function showPreview() {
  const lang = $('#preview-lang').value
  const res = await api('preview?language=' + encodeURIComponent(lang), { headers: { Accept: 'text/html' } })
  // Without its meta refresh: reloading about:srcdoc would blank the frame.
  $('#preview').srcdoc = (await res.text()).replace(/<meta http-equiv="refresh"[^>]*>/gi, '')
  $('#preview').dataset.language = lang
}

$('#login-form').addEventListener('submit', login)
$('#logout').addEventListener('click', () => logout(''))
$('#settings').addEventListener('submit', saveSettings)
$('#suspend').addEventListener('click', toggleSuspend)
$('#range').addEventListener('change', () => refresh())
$('#preview-lang').addEventListener('change', showPreview)
$('#preview-show').addEventListener('click', showPreview)
if (state.token) start()
`
