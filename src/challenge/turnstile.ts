/**
 * @module
 * `turnstile()`: Cloudflare Turnstile. The widget goes on the queue page; its token is checked with the
 * `siteverify` API as documented (https://developers.cloudflare.com/turnstile/get-started/server-side-validation/):
 * a form POST of `secret`, `response`, `remoteip` (the room's own conclusion about the client's address) and
 * `idempotency_key`, answered with JSON whose `success` says whether the token is valid and whose `hostname`
 * must be one this room serves (tokens are single use and live 300 s: siteverify refuses a replay itself).
 * A call that fails or times out is `unavailable`: `onError` says whether that lets the user by or counts as a
 * failure (the room's `onFail` then applies).
 */
import type { Context } from 'hono'
import { WaitingRoomError } from '../errors.ts'
import { escapeHtml, type ChallengeProvider, type ChallengeVariables, type ChallengeVerdict } from './provider.ts'

export const SITEVERIFY_URL = 'https://challenges.cloudflare.com/turnstile/v0/siteverify'
const SCRIPT_URL = 'https://challenges.cloudflare.com/turnstile/v0/api.js'
/** Turnstile tokens are at most 2048 characters (the documented limit). */
const MAX_TOKEN_LENGTH = 2048

export interface TurnstileOptions {
  /** The widget's site key (public). */
  siteKey: string
  /** The secret key siteverify checks tokens with. */
  secretKey: string
  /** Where tokens are verified. Default Cloudflare's siteverify; tests point it at a local server. */
  siteverifyUrl?: string | undefined
  /** ms before a siteverify call counts as unavailable. Default 3000. */
  timeoutMs?: number | undefined
  /** An unreachable siteverify: `fail` (default) applies the room's `onFail`, `pass` lets the user by. */
  onError?: 'fail' | 'pass' | undefined
  /** When set, a token whose `action` differs is refused. Default none. */
  action?: string | undefined
  /**
   * The hostname(s) a token must have been solved on (siteverify's `hostname`; Cloudflare recommends checking
   * it, so a token farmed on another site is refused). Default: the hostname of the request being answered —
   * the page the widget ran on. Set it when a proxy in front rewrites the Host the room sees, or to `false`
   * to skip the check (Turnstile's dummy test keys report a hostname of their own).
   */
  hostname?: string | readonly string[] | false | undefined
  /** `fetch` to call siteverify with. Default the global one. */
  fetch?: typeof fetch | undefined
}

interface SiteverifyAnswer {
  success?: unknown
  action?: unknown
  hostname?: unknown
}

/** The hostnames a token may come from, for this request (lower case; undefined: no check). */
function hostnamesFor(option: TurnstileOptions['hostname'], c: Context): readonly string[] | undefined {
  if (option === false) return undefined
  if (option === undefined) return [new URL(c.req.url).hostname.toLowerCase()]
  return typeof option === 'string' ? [option.toLowerCase()] : option.map((name) => name.toLowerCase())
}

function checkHostnameOption(option: unknown): void {
  if (option === undefined || option === false) return
  const names = typeof option === 'string' ? [option] : option
  if (!Array.isArray(names) || names.length === 0 || !names.every((name) => typeof name === 'string' && /^[a-z0-9.-]+$/i.test(name))) {
    throw new WaitingRoomError('ERR_WR_OPTIONS', 'invalid option challenge.provider hostname: a hostname, a non-empty list of hostnames, or false')
  }
}

export function turnstile(options: TurnstileOptions): ChallengeProvider {
  if (typeof options?.siteKey !== 'string' || options.siteKey.length === 0) {
    throw new WaitingRoomError('ERR_WR_OPTIONS', 'invalid option challenge.provider siteKey: a non-empty string (the Turnstile site key)')
  }
  if (typeof options.secretKey !== 'string' || options.secretKey.length === 0) {
    throw new WaitingRoomError('ERR_WR_OPTIONS', 'invalid option challenge.provider secretKey: a non-empty string (the Turnstile secret key)')
  }
  const url = options.siteverifyUrl ?? SITEVERIFY_URL
  if (!/^https?:\/\//.test(url)) throw new WaitingRoomError('ERR_WR_OPTIONS', 'invalid option challenge.provider siteverifyUrl: an http(s) URL')
  const timeoutMs = options.timeoutMs ?? 3000
  if (!Number.isInteger(timeoutMs) || timeoutMs < 1 || timeoutMs > 60_000) {
    throw new WaitingRoomError('ERR_WR_OPTIONS', 'invalid option challenge.provider timeoutMs: an integer from 1 to 60000')
  }
  checkHostnameOption(options.hostname)
  const unavailable: ChallengeVerdict = options.onError === 'pass' ? { ok: true } : { ok: false, reason: 'unavailable' }
  const call = options.fetch ?? ((input, init) => fetch(input, init))
  return {
    name: 'turnstile',
    widget(variables: ChallengeVariables): string {
      const appearance = variables.challenge.mode === 'invisible' ? 'interaction-only' : 'always'
      return (
        `<div class="cf-turnstile" data-sitekey="${escapeHtml(options.siteKey)}" data-callback="waitingRoomChallengeSolved" data-appearance="${appearance}"` +
        `${options.action ? ` data-action="${escapeHtml(options.action)}"` : ''}></div><script src="${SCRIPT_URL}" async defer></script>`
      )
    },
    async verify(c, token, env) {
      if (token.length === 0 || token.length > MAX_TOKEN_LENGTH) return { ok: false, reason: 'malformed' }
      const form = new URLSearchParams({ secret: options.secretKey, response: token, idempotency_key: crypto.randomUUID() })
      // The room's conclusion about the client (never X-Forwarded-For as a client wrote it).
      if (env?.clientIp) form.set('remoteip', env.clientIp)
      let answer: SiteverifyAnswer
      try {
        const response = await call(url, { method: 'POST', body: form, signal: AbortSignal.timeout(timeoutMs) })
        if (!response.ok) return unavailable
        answer = (await response.json()) as SiteverifyAnswer
      } catch {
        return unavailable
      }
      if (answer?.success !== true) return { ok: false, reason: 'refused' }
      if (options.action !== undefined && answer.action !== options.action) return { ok: false, reason: 'refused' }
      const hostnames = hostnamesFor(options.hostname, c)
      if (hostnames && !(typeof answer.hostname === 'string' && hostnames.includes(answer.hostname.toLowerCase()))) return { ok: false, reason: 'refused' }
      return { ok: true }
    },
  }
}
