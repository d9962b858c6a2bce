/**
 * @module
 * Compiles a rule's condition tree once into a function of the request's facts. Evaluation is three-valued:
 * a fact the room cannot know for sure — no client address, no country, a path servers may read differently
 * (`coverage.ts`) — makes its test *unknown*, `and`/`or`/`not` follow Kleene's logic, and a rule bypasses only
 * when its condition is surely true. So `not { ip: [...] }` never lets a client with no known address through.
 */
import { inCidr, parseAddress, parseCidr } from '../proxy/ip.ts'
import type { Condition, StringTest } from './language.ts'

/** What a rule may look at, read once per request (./facts.ts). */
export interface RequestFacts {
  /** The client's address as 16 bytes (IPv4 mapped), undefined when unknown. */
  ip: Uint8Array | undefined
  /** ISO 3166-1 alpha-2, upper case; undefined when the platform gives none. */
  country: string | undefined
  /** Upper case. */
  method: string
  /** The decoded path; undefined when servers may read it differently (unknown to a rule). */
  path: string | undefined
  query(name: string): string | undefined
  header(name: string): string | undefined
}

/** Three truth values: false, true, unknown. */
export type Truth = 0 | 1 | 2
const FALSE = 0
const TRUE = 1
const UNKNOWN = 2

type Test = (facts: RequestFacts) => Truth

/** A string test as a predicate on a value (undefined: absent, which fails every test). */
export function stringPredicate(test: StringTest): (value: string | undefined) => boolean {
  const fold = test.ignoreCase ? (s: string) => s.toLowerCase() : (s: string) => s
  if (test.equals !== undefined) {
    const want = fold(test.equals)
    return (value) => value !== undefined && fold(value) === want
  }
  if (test.startsWith !== undefined) {
    const want = fold(test.startsWith)
    return (value) => value !== undefined && fold(value).startsWith(want)
  }
  if (test.endsWith !== undefined) {
    const want = fold(test.endsWith)
    return (value) => value !== undefined && fold(value).endsWith(want)
  }
  if (test.contains !== undefined) {
    const want = fold(test.contains)
    return (value) => value !== undefined && fold(value).includes(want)
  }
  return (value) => value !== undefined
}

const truth = (value: boolean): Truth => (value ? TRUE : FALSE)

export function compileCondition(condition: Condition): Test {
  if ('ip' in condition) {
    const ranges = condition.ip.map(parseCidr)
    return (f) => (f.ip === undefined ? UNKNOWN : truth(ranges.some((range) => inCidr(f.ip!, range))))
  }
  if ('country' in condition) {
    const countries = new Set(condition.country.map((c) => c.toUpperCase()))
    return (f) => (f.country === undefined ? UNKNOWN : truth(countries.has(f.country)))
  }
  if ('method' in condition) {
    const methods = new Set(condition.method.map((m) => m.toUpperCase()))
    // HEAD follows GET, as everywhere else in the room.
    return (f) => truth(methods.has(f.method) || (f.method === 'HEAD' && methods.has('GET')))
  }
  if ('path' in condition) {
    const matches = stringPredicate(condition.path)
    return (f) => (f.path === undefined ? UNKNOWN : truth(matches(f.path)))
  }
  if ('query' in condition) {
    const { name } = condition.query
    const matches = stringPredicate(condition.query)
    return (f) => truth(matches(f.query(name)))
  }
  if ('header' in condition) {
    const name = condition.header.name.toLowerCase()
    const matches = stringPredicate(condition.header)
    return (f) => truth(matches(f.header(name)))
  }
  if ('userAgent' in condition) {
    const matches = stringPredicate(condition.userAgent)
    return (f) => truth(matches(f.header('user-agent')))
  }
  if ('not' in condition) {
    const inner = compileCondition(condition.not)
    return (f) => {
      const value = inner(f)
      return value === UNKNOWN ? UNKNOWN : value === TRUE ? FALSE : TRUE
    }
  }
  const all = 'and' in condition
  const parts = (all ? condition.and : condition.or).map(compileCondition)
  const decisive = all ? FALSE : TRUE
  return (f) => {
    let result: Truth = all ? TRUE : FALSE
    for (const part of parts) {
      const value = part(f)
      if (value === decisive) return decisive
      if (value === UNKNOWN) result = UNKNOWN
    }
    return result
  }
}

/** The address as {@link RequestFacts} wants it (undefined when it is not an IP address). */
export const addressOf = (text: string | undefined): Uint8Array | undefined => (text ? parseAddress(text) : undefined)
