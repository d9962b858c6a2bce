/// <reference types="node" />
/**
 * @module
 * Turning one flag's text into its value, and every mistake into a message in the flag's own words:
 * `invalid --total-active-users -5: users allowed on the site at once must be a whole number, 1 or more`
 * rather than a parser's "argument is ambiguous" or a schema's "expected int, received number".
 */

/** A command-line mistake: printed with a pointer to `--help`, exit status 2. */
export class UsageError extends Error {
  override name = 'UsageError'
}

export type Kind = 'string' | 'integer' | 'boolean' | 'list'

/** What the value checks need to know of a flag (the rest of the table is in ./flags.ts). */
export interface FlagValueRule {
  name: string
  kind: Kind
  /** Shown in `--help`, and the subject of its error messages. */
  help: string
  /** Integers: the smallest and largest allowed. */
  min?: number
  max?: number
  /** What the flag sets, in error messages (`the queueing method must be …`). Default: `help`. */
  subject?: string
  /** The only values allowed: status codes for an integer, names for a string (matched in any case). */
  choices?: readonly (number | string)[]
  /** Integers: what one unit is, for messages ("users", "minutes"). */
  unit?: string
}

export type FlagValue = string | number | boolean | string[]

const TRUE = new Set(['1', 'true', 'yes', 'on'])
const FALSE = new Set(['0', 'false', 'no', 'off', ''])

/**
 * The value of `flag` from its text (`raw`; a boolean flag given bare is `true`, a list flag given
 * several times is an array). `source` names where it came from (`--port`, `WR_PORT`) in messages.
 */
export function convert(flag: FlagValueRule, raw: string | boolean | (string | boolean)[], source: string): FlagValue {
  if (flag.kind === 'list') {
    const parts = (Array.isArray(raw) ? raw : [raw]).flatMap((item) => String(item).split(','))
    return parts.map((part) => part.trim()).filter(Boolean)
  }
  const single = Array.isArray(raw) ? raw[raw.length - 1]! : raw
  if (flag.kind === 'boolean') {
    if (typeof single === 'boolean') return single
    const text = single.trim().toLowerCase()
    if (TRUE.has(text)) return true
    if (FALSE.has(text)) return false
    throw new UsageError(`invalid ${shown(source, single)}: expected true or false`)
  }
  if (typeof single === 'boolean') throw new UsageError(`${source} needs a value`)
  if (flag.kind === 'integer') return integer(flag, single, source)
  // On the command line, an empty text is a mistake (an unset variable in a script), never "use the default";
  // an empty environment variable counts as unset, and never reaches here.
  if (single.trim() === '') throw new UsageError(`${source} is empty: it needs a value (${flag.help})`)
  if (flag.choices) return choice(flag, single, source)
  return single
}

/** A string flag with a fixed set of values, in any case: the value as the table spells it. */
function choice(flag: FlagValueRule, raw: string, source: string): string {
  const text = raw.trim().toLowerCase()
  const found = flag.choices!.find((value) => String(value).toLowerCase() === text)
  if (found !== undefined) return String(found)
  throw new UsageError(`invalid ${shown(source, raw)}: ${flag.subject ?? flag.help} must be ${expectation(flag)}`)
}

/** `--port 80` or `WR_PORT=80`, the value quoted only when it would otherwise be invisible or ambiguous. */
export function shown(source: string, raw: string): string {
  const value = raw === '' || /\s/.test(raw) ? JSON.stringify(raw) : raw
  return source.startsWith('--') ? `${source} ${value}` : `${source}=${value}`
}

function integer(flag: FlagValueRule, raw: string, source: string): number {
  const text = raw.trim()
  const value = /^[+-]?\d+$/.test(text) ? Number(text) : Number.NaN
  const allowed = flag.choices ? flag.choices.includes(value) : value >= (flag.min ?? -Infinity) && value <= (flag.max ?? Infinity)
  if (Number.isSafeInteger(value) && allowed) return value
  throw new UsageError(`invalid ${shown(source, raw)}: ${flag.subject ?? flag.help} must be ${expectation(flag)}`)
}

/** "a whole number of minutes from 1 to 30", "200, 202 or 429". */
function expectation(flag: FlagValueRule): string {
  if (flag.choices) return `${flag.choices.slice(0, -1).join(', ')} or ${flag.choices.at(-1)}`
  const of = flag.unit ? ` of ${flag.unit}` : ''
  if (flag.max === undefined) return `a whole number${of}, ${flag.min ?? 0} or more`
  return `a whole number${of} from ${flag.min ?? 0} to ${flag.max}`
}

/**
 * Readies `argv` for node:util's parseArgs, which takes `--port -1` for a flag followed by another
 * flag ("argument is ambiguous"): a value-taking flag followed by a dash-led word that is no flag of
 * ours gets it as its value (`--port=-1`), and one followed by a flag of ours is a missing value.
 */
export function attachDashValues(argv: string[], rules: readonly FlagValueRule[]): string[] {
  const byName = new Map(rules.map((rule) => [rule.name, rule]))
  const known = (token: string): boolean => token === '-h' || token === '--help' || byName.has(token.replace(/^--/, '').split('=')[0]!)
  const out: string[] = []
  for (let i = 0; i < argv.length; i++) {
    const token = argv[i]!
    const rule = token.startsWith('--') && !token.includes('=') ? byName.get(token.slice(2)) : undefined
    const next = argv[i + 1]
    if (!rule || rule.kind === 'boolean' || next === undefined || !next.startsWith('-')) {
      out.push(token)
      continue
    }
    if (known(next)) throw new UsageError(`${token} needs a value (${rule.help}), but ${next} follows it`)
    out.push(`${token}=${next}`)
    i++
  }
  return out
}
