/**
 * @module
 * One error shape for the admin API: `{ error: 'invalid', issues: [{ path, message }] }` with 400, naming
 * each failing field, for zod-validator failures and for checks done after validation alike.
 */
import type { Context } from 'hono'
import type { z } from 'zod'

export interface AdminIssue {
  /** The failing field, dotted (`eventEndTime`, `cookie.name`); empty for the body as a whole. */
  path: string
  message: string
}

/** zod issues as admin issues; an unknown key becomes one issue naming that key. */
export function issuesOf(error: z.core.$ZodError): AdminIssue[] {
  return error.issues.flatMap((issue): AdminIssue[] => {
    const path = issue.path.map(String).join('.')
    if (issue.code === 'unrecognized_keys') {
      return issue.keys.map((key) => ({ path: path ? `${path}.${key}` : key, message: 'unknown field' }))
    }
    return [{ path, message: issue.message }]
  })
}

export const invalid = (c: Context, issues: AdminIssue[]): Response => c.json({ error: 'invalid', issues }, 400)

/** The hook passed to every `zValidator(...)`: replaces its default body (the whole zod result) with ours. */
export function validationHook(result: { success: true } | { success: false; error: z.core.$ZodError }, c: Context): Response | undefined {
  return result.success ? undefined : invalid(c, issuesOf(result.error))
}
