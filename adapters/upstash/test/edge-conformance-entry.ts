/**
 * @module
 * Bundled for edge-runtime: the shared conformance suite against the adapter over @upstash/redis, run
 * by a tiny runner (the suite takes describe/it/expect as arguments). `GET /` runs it and answers with
 * one `{ name, error? }` per test.
 */
import { Redis } from '@upstash/redis'
import { upstashCoordinator } from '../index.ts'
import { coordinatorConformance, type Expectation, type TestApi } from '../../../test/conformance/coordinator-suite.ts'
import { edgeEnv, serveFetch } from './edge-globals.ts'

type Fn = () => void | Promise<void>
interface Suite {
  name: string
  before: Fn[]
  after: Fn[]
  tests: { name: string; body: Fn }[]
}

function deepEqual(a: unknown, b: unknown): boolean {
  if (Object.is(a, b)) return true
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false
  if (Array.isArray(a) !== Array.isArray(b)) return false
  const keysA = Object.keys(a).filter((key) => (a as Record<string, unknown>)[key] !== undefined)
  const keysB = Object.keys(b).filter((key) => (b as Record<string, unknown>)[key] !== undefined)
  if (keysA.length !== keysB.length) return false
  return keysA.every((key) => deepEqual((a as Record<string, unknown>)[key], (b as Record<string, unknown>)[key]))
}

function expect(actual: unknown): Expectation {
  const check = (ok: boolean, what: string, expected?: unknown): void => {
    if (!ok) throw new Error(`expected ${JSON.stringify(actual)} ${what} ${JSON.stringify(expected)}`)
  }
  return {
    toBe: (expected) => check(Object.is(actual, expected), 'to be', expected),
    toEqual: (expected) => check(deepEqual(actual, expected), 'to equal', expected),
    toBeGreaterThanOrEqual: (expected) => check((actual as number) >= expected, 'to be >=', expected),
    toBeLessThanOrEqual: (expected) => check((actual as number) <= expected, 'to be <=', expected),
    toBeUndefined: () => check(actual === undefined, 'to be undefined'),
  }
}

const suites: Suite[] = []
let current: Suite | undefined
const api: TestApi = {
  describe(name, body) {
    current = { name, before: [], after: [], tests: [] }
    suites.push(current)
    body()
  },
  it: (name, body) => void current!.tests.push({ name, body }),
  beforeAll: (body) => void current!.before.push(body),
  afterAll: (body) => void current!.after.push(body),
  expect,
}

const connect = () =>
  upstashCoordinator(new Redis({ url: edgeEnv('UPSTASH_REDIS_REST_URL'), token: edgeEnv('UPSTASH_REDIS_REST_TOKEN') }), {
    prefix: edgeEnv('WAITING_ROOM_PREFIX'),
  })
coordinatorConformance(api, { name: 'upstash in edge-runtime', create: connect, reopen: connect, generations: true })

async function runAll(): Promise<{ name: string; error?: string }[]> {
  const results: { name: string; error?: string }[] = []
  for (const suite of suites) {
    for (const body of suite.before) await body()
    for (const test of suite.tests) {
      try {
        await test.body()
        results.push({ name: `${suite.name} > ${test.name}` })
      } catch (error) {
        results.push({ name: `${suite.name} > ${test.name}`, error: String((error as Error)?.stack ?? error) })
      }
    }
    for (const body of suite.after) await body()
  }
  return results
}

serveFetch(async () => Response.json(await runAll()))
