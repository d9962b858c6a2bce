/**
 * @module
 * The dashboard page: one self-contained HTML document (styles and script inline, no build step, nothing from
 * a CDN), served at the admin API's root. The settings form is generated from the JSON Schema of the same zod
 * schema `PATCH /settings` validates with, so a new setting appears in the form by itself.
 */
import { z } from 'zod'
import { settingsPatchSchema } from '../../admission/settings.ts'
import { LANGUAGES } from '../../page/messages.ts'
import { DASHBOARD_JS } from './script.ts'
import { DASHBOARD_CSS } from './style.ts'

type JsonSchema = { type?: string | string[]; anyOf?: JsonSchema[]; enum?: unknown[]; const?: unknown; minimum?: number; maximum?: number; description?: string }

const escapeHtml = (text: string): string => text.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`)

/** The non-null alternative of a nullish field's schema. */
function unwrap(schema: JsonSchema): JsonSchema {
  if (schema.anyOf) {
    const options = schema.anyOf.filter((option) => option.type !== 'null')
    return options.length === 1 ? unwrap(options[0]!) : { anyOf: options }
  }
  if (Array.isArray(schema.type)) return { ...schema, type: schema.type.find((type) => type !== 'null') }
  return schema
}

const words = (name: string): string => name.replace(/([A-Z])/g, ' $1').replace(/^./, (ch) => ch.toUpperCase())

/** One form field for one property: a number box, or a select with "(default)" for the option's value. */
function field(name: string, raw: JsonSchema): string {
  const schema = unwrap(raw)
  const id = `f-${name}`
  let control: string
  const select = (type: string, values: string[]) =>
    `<select id="${id}" name="${name}" data-type="${type}"><option value="">(option default)</option>${values.map((v) => `<option>${escapeHtml(v)}</option>`).join('')}</select>`
  if (schema.type === 'integer' || schema.type === 'number') {
    const bounds = `${schema.minimum !== undefined ? ` min="${schema.minimum}"` : ''}${schema.maximum !== undefined ? ` max="${schema.maximum}"` : ''}`
    control = `<input id="${id}" name="${name}" data-type="integer" inputmode="numeric"${bounds}>`
  } else if (schema.type === 'boolean') control = select('boolean', ['true', 'false'])
  else if (schema.enum) control = select('string', schema.enum.map(String))
  else if (schema.anyOf?.every((option) => option.const !== undefined)) control = select('number-enum', schema.anyOf.map((option) => String(option.const)))
  else control = `<input id="${id}" name="${name}" data-type="string">`
  return `<div class="field"><label for="${id}">${escapeHtml(words(name))}</label>${control}
<span class="hint" data-effective-for="${name}"></span><span class="error" data-error-for="${name}" role="alert"></span></div>`
}

/** The settings form's fields, from `settingsPatchSchema`'s JSON Schema. */
export function settingsFields(): string {
  const schema = z.toJSONSchema(settingsPatchSchema, { io: 'input' }) as { properties: Record<string, JsonSchema> }
  return Object.entries(schema.properties).map(([name, property]) => field(name, property)).join('\n')
}

const RANGES: [number, string][] = [[15, 'last 15 minutes'], [60, 'last hour'], [360, 'last 6 hours'], [1440, 'last 24 hours'], [10080, 'last 7 days']]

export interface DashboardPageOptions {
  /** The script's CSP nonce, new for each response. */
  nonce: string
  /** The room's id, in the title. */
  roomId: string
  /** Milliseconds between two polls. */
  pollMs: number
}

/** The whole page. */
export function dashboardPage({ nonce, roomId, pollMs }: DashboardPageOptions): string {
  const chart = (id: string, title: string) => `<section class="card chart"><h2>${title}</h2><div id="${id}"></div></section>`
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<meta name="referrer" content="no-referrer"><title>Waiting room ${escapeHtml(roomId)} · dashboard</title>
<style>${DASHBOARD_CSS}</style></head>
<body data-poll-ms="${pollMs}">
<section id="login" class="card" hidden>
<h1>Waiting room dashboard</h1><p class="notice">Room <b>${escapeHtml(roomId)}</b>. Sign in with the admin token; it stays in this tab only.</p>
<form id="login-form"><label for="token">Admin token</label><input id="token" type="password" autocomplete="current-password" required>
<button type="submit">Sign in</button><span id="login-error" class="error" role="alert"></span></form></section>
<div id="app" hidden>
<header><h1>Waiting room <b>${escapeHtml(roomId)}</b> <span id="status" class="badge">…</span></h1>
<label>Range <select id="range">${RANGES.map(([m, label]) => `<option value="${m}"${m === 60 ? ' selected' : ''}>${label}</option>`).join('')}</select></label>
<button id="suspend" type="button" class="danger">Suspend</button><span id="suspend-result" class="notice"></span>
<button id="logout" type="button" class="secondary">Sign out</button></header>
<main>
<section class="card"><div class="stats">
<div class="stat"><b id="active">–</b><span>active users</span></div>
<div class="stat"><b id="queued">–</b><span>in the queue</span></div>
<div class="stat"><b id="maxwait">–</b><span>max estimated wait (min)</span></div></div>
<p class="notice"><span id="totals"></span> <span id="history-note"></span> <span id="updated"></span></p></section>
<div class="grid">${chart('chart-active', 'Active users vs limit')}${chart('chart-queue', 'Queue length')}
${chart('chart-admissions', 'Admissions per minute vs limit')}${chart('chart-wait', 'Wait before admission (seconds)')}</div>
<section class="card"><h2>Settings</h2><p class="notice">Empty: the room's option applies. Saved settings reach every worker within one refresh.</p>
<form id="settings" class="settings" novalidate>${settingsFields()}
<div><button type="submit">Save settings</button> <span id="settings-result" class="notice"></span><span id="settings-error" class="error"></span></div></form></section>
<section class="card"><h2>Events</h2><div class="table-wrap"><table id="events"><thead><tr><th>Event</th><th>Time (UTC)</th><th>Peak queue</th>
<th>Max wait (s)</th><th>Admitted</th><th>Time to drain (s)</th></tr></thead><tbody></tbody></table></div>
<p id="events-empty" class="notice">No events scheduled.</p></section>
<section class="card"><h2>Queue page preview</h2>
<label>Language <select id="preview-lang">${LANGUAGES.map((lang) => `<option>${lang}</option>`).join('')}</select></label>
<button id="preview-show" type="button" class="secondary">Show</button>
<iframe id="preview" class="preview" sandbox title="Queue page preview"></iframe></section>
</main></div>
<script nonce="${nonce}">
if (!sessionStorage.getItem('hono-waiting-room.admin-token')) document.getElementById('login').hidden = false
${DASHBOARD_JS}</script>
</body></html>`
}
