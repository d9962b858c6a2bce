/**
 * @module
 * The bypass rule language for the admin API (`POST /rules`): a rule is an id, an optional description and a
 * condition tree in JSON — conditions on the client's IP (addresses or CIDR ranges, v4 and v6), country, path,
 * query parameter, header, method and user agent, combined with `and` / `or` / `not`. Validated with zod;
 * sizes are bounded (depth, list lengths, string lengths) so one evaluation is cheap whatever an admin sends.
 * No regular expressions: an admin's pattern must not be able to stall every request (ReDoS).
 */
import { z } from 'zod'
import { parseCidr } from '../proxy/ip.ts'

/** A string test: exactly one of `equals`, `startsWith`, `endsWith`, `contains`, or none (the value is present). */
export interface StringTest {
  equals?: string | undefined
  startsWith?: string | undefined
  endsWith?: string | undefined
  contains?: string | undefined
  /** Compare case-insensitively. Default false. */
  ignoreCase?: boolean | undefined
}

export interface NamedTest extends StringTest {
  /** The query parameter or header name (header names are case-insensitive). */
  name: string
}

export type Condition =
  | { ip: string[] }
  | { country: string[] }
  | { method: string[] }
  | { path: StringTest }
  | { query: NamedTest }
  | { header: NamedTest }
  | { userAgent: StringTest }
  | { and: Condition[] }
  | { or: Condition[] }
  | { not: Condition }

export interface BypassRule {
  /** 1–64 letters, digits, `_ . -`: names the rule in `/metrics`. */
  id: string
  description?: string | undefined
  /** A rule that is kept but not applied. Default true. */
  enabled?: boolean | undefined
  /** The requests the rule lets skip the room. */
  when: Condition
}

export const MAX_RULES = 100
export const MAX_DEPTH = 8
/** Most conditions (leaves and and/or/not nodes) in one rule: what one evaluation may cost. */
export const MAX_CONDITIONS_PER_RULE = 256
/** Most conditions in all of a room's rules together: what judging one request may cost. */
export const MAX_CONDITIONS_PER_ROOM = 2048
const MAX_LIST = 64
const text = z.string().min(1).max(512)

const OPERATORS = ['equals', 'startsWith', 'endsWith', 'contains'] as const
const stringTestFields = {
  equals: text.optional(),
  startsWith: text.optional(),
  endsWith: text.optional(),
  contains: text.optional(),
  ignoreCase: z.boolean().optional(),
}
const oneOperator = (test: StringTest) => OPERATORS.filter((op) => test[op] !== undefined).length <= 1
const ONE_OPERATOR = { message: 'at most one of equals, startsWith, endsWith, contains' }
const stringTest = z.strictObject(stringTestFields).refine(oneOperator, ONE_OPERATOR)
const namedTest = z.strictObject({ name: z.string().regex(/^[A-Za-z0-9!#$%&'*+.^_`|~-]{1,128}$/, 'a header or parameter name'), ...stringTestFields }).refine(oneOperator, ONE_OPERATOR)

const ipList = z
  .array(z.string().max(64))
  .min(1)
  .max(MAX_LIST)
  .superRefine((list, ctx) => {
    list.forEach((entry, index) => {
      try {
        parseCidr(entry)
      } catch (error) {
        ctx.addIssue({ code: 'custom', path: [index], message: (error as Error).message })
      }
    })
  })

const depthOf = (condition: Condition): number => {
  if ('and' in condition) return 1 + Math.max(0, ...condition.and.map(depthOf))
  if ('or' in condition) return 1 + Math.max(0, ...condition.or.map(depthOf))
  if ('not' in condition) return 1 + depthOf(condition.not)
  return 1
}

export const conditionSchema: z.ZodType<Condition, Condition> = z.lazy(() =>
  z.union([
    z.strictObject({ ip: ipList }),
    z.strictObject({ country: z.array(z.string().regex(/^[A-Za-z]{2}$/, 'an ISO 3166-1 alpha-2 code such as US or DE')).min(1).max(MAX_LIST) }),
    z.strictObject({ method: z.array(z.string().regex(/^[A-Za-z]{1,32}$/, 'an HTTP method name')).min(1).max(MAX_LIST) }),
    z.strictObject({ path: stringTest }),
    z.strictObject({ query: namedTest }),
    z.strictObject({ header: namedTest }),
    z.strictObject({ userAgent: stringTest }),
    z.strictObject({ and: z.array(conditionSchema).min(1).max(MAX_LIST) }),
    z.strictObject({ or: z.array(conditionSchema).min(1).max(MAX_LIST) }),
    z.strictObject({ not: conditionSchema }),
  ]),
) as z.ZodType<Condition, Condition>

/**
 * The size of a condition tree as sent (unvalidated JSON): its depth and its number of conditions, counted
 * without recursion and stopping early, so a 5000-deep `not` or a 262k-leaf `or` is refused in microseconds
 * before zod (which recurses, and would overflow the stack or take seconds) sees it.
 */
export function conditionSize(value: unknown, stopAt = MAX_CONDITIONS_PER_RULE): { depth: number; count: number } {
  const stack: [unknown, number][] = [[value, 1]]
  let depth = 0
  let count = 0
  while (stack.length > 0 && count <= stopAt && depth <= MAX_DEPTH) {
    const [node, level] = stack.pop()!
    count++
    depth = Math.max(depth, level)
    if (node === null || typeof node !== 'object') continue
    const record = node as Record<string, unknown>
    for (const child of [record.and, record.or].filter(Array.isArray) as unknown[][]) for (const c of child.slice(0, stopAt + 1)) stack.push([c, level + 1])
    if ('not' in record) stack.push([record.not, level + 1])
  }
  return { depth, count }
}

const sizeIssue = (value: unknown): string | undefined => {
  const { depth, count } = conditionSize(value)
  if (depth > MAX_DEPTH) return `conditions nest at most ${MAX_DEPTH} deep`
  if (count > MAX_CONDITIONS_PER_RULE) return `at most ${MAX_CONDITIONS_PER_RULE} conditions per rule`
  return undefined
}

/** `when`: its size checked first (no recursion), then its shape. */
const whenSchema: z.ZodType<Condition, Condition> = z
  .unknown()
  .superRefine((value, ctx) => {
    const issue = sizeIssue(value)
    if (issue) ctx.addIssue({ code: 'custom', message: issue, abort: true })
  })
  .pipe(conditionSchema.refine((condition) => depthOf(condition) <= MAX_DEPTH, { message: `conditions nest at most ${MAX_DEPTH} deep` })) as unknown as z.ZodType<Condition, Condition>

export const ruleSchema: z.ZodType<BypassRule, BypassRule> = z.strictObject({
  id: z.string().regex(/^[A-Za-z0-9_.-]{1,64}$/, '1–64 letters, digits, _ . or -'),
  description: z.string().max(2000).optional(),
  enabled: z.boolean().optional(),
  when: whenSchema,
})

export const rulesSchema = z.array(ruleSchema).max(MAX_RULES)
