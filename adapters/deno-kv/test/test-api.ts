/**
 * @module
 * describe/it/beforeAll/afterAll/expect for `deno test`, so the runner-agnostic conformance suite runs
 * unchanged. `jsr:@std/testing` and `@std/expect` are out of reach (no network beyond the npm registry) and
 * `npm:expect` is not in the project's node_modules, so this maps the suite's few needs onto `Deno.test`
 * and `t.step`: each top-level `describe` is one Deno test, its `it`s are steps, its hooks run around them.
 *
 * `Deno` is reached through `globalThis` with the few types used, so Node's tsc (no Deno types) checks this too.
 */
import type { Expectation, TestApi } from '../../../test/conformance/coordinator-suite.ts'

type Fn = () => void | Promise<void>

interface StepContext {
  step(name: string, body: (t: StepContext) => Promise<void>): Promise<boolean>
}

const deno = (globalThis as unknown as { Deno: { test(name: string, body: (t: StepContext) => Promise<void>): void } }).Deno

interface Group {
  name: string
  before: Fn[]
  after: Fn[]
  children: (Group | Case)[]
}

interface Case {
  name: string
  body: Fn
  timeoutMs: number
}

/** Like vitest.config.ts's testTimeout. */
const DEFAULT_TIMEOUT_MS = 30_000

let current: Group | undefined

export function describe(name: string, body: () => void): void {
  const group: Group = { name, before: [], after: [], children: [] }
  const parent = current
  current = group
  try {
    body()
  } finally {
    current = parent
  }
  if (parent) parent.children.push(group)
  else deno.test(name, (t) => runGroup(group, t))
}

export function it(name: string, body: Fn, timeoutMs = DEFAULT_TIMEOUT_MS): void {
  if (current) current.children.push({ name, body, timeoutMs })
  else deno.test(name, () => withTimeout(name, body, timeoutMs))
}

export function beforeAll(body: Fn): void {
  groupFor('beforeAll').before.push(body)
}

export function afterAll(body: Fn): void {
  groupFor('afterAll').after.push(body)
}

function groupFor(hook: string): Group {
  if (!current) throw new Error(`${hook} outside describe: this shim only runs hooks of a describe block`)
  return current
}

async function runGroup(group: Group, t: StepContext): Promise<void> {
  for (const hook of group.before) await hook()
  try {
    for (const child of group.children) {
      if ('children' in child) await t.step(child.name, (inner) => runGroup(child, inner))
      else await t.step(child.name, () => withTimeout(child.name, child.body, child.timeoutMs))
    }
  } finally {
    for (const hook of group.after) await hook()
  }
}

async function withTimeout(name: string, body: Fn, ms: number): Promise<void> {
  let timer: ReturnType<typeof setTimeout> | undefined
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`"${name}" timed out after ${ms} ms`)), ms)
  })
  try {
    await Promise.race([Promise.resolve().then(body), timeout])
  } finally {
    clearTimeout(timer)
  }
}

/** The suite's matchers, with jest's meaning (`toEqual` ignores properties that are undefined). */
export function expect(actual: unknown): Expectation {
  const fail = (matcher: string, expected: unknown): never => {
    throw new Error(`expect(${show(actual)}).${matcher}(${show(expected)}) failed`)
  }
  return {
    toBe: (expected) => void (Object.is(actual, expected) || fail('toBe', expected)),
    toEqual: (expected) => void (deepEqual(actual, expected) || fail('toEqual', expected)),
    toBeGreaterThanOrEqual: (expected) => void ((typeof actual === 'number' && actual >= expected) || fail('toBeGreaterThanOrEqual', expected)),
    toBeLessThanOrEqual: (expected) => void ((typeof actual === 'number' && actual <= expected) || fail('toBeLessThanOrEqual', expected)),
    toBeUndefined: () => void (actual === undefined || fail('toBeUndefined', '')),
  }
}

export function deepEqual(a: unknown, b: unknown): boolean {
  if (Object.is(a, b)) return true
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false
  if (Array.isArray(a) !== Array.isArray(b)) return false
  if (Array.isArray(a)) {
    const other = b as unknown[]
    return a.length === other.length && a.every((item, i) => deepEqual(item, other[i]))
  }
  if (Object.getPrototypeOf(a) !== Object.getPrototypeOf(b)) return false
  const defined = (o: object) => Object.keys(o).filter((key) => (o as Record<string, unknown>)[key] !== undefined)
  const keys = defined(a)
  if (keys.length !== defined(b).length) return false
  return keys.every((key) => deepEqual((a as Record<string, unknown>)[key], (b as Record<string, unknown>)[key]))
}

function show(value: unknown): string {
  if (value === undefined) return 'undefined'
  try {
    return JSON.stringify(value, (_, v) => (typeof v === 'bigint' ? `${v}n` : v)) ?? String(value)
  } catch {
    return String(value)
  }
}

/** All five, for `coordinatorConformance(testApi, ...)`. */
export const testApi: TestApi = { describe, it, expect, beforeAll, afterAll }
