/**
 * @module
 * What the admin routes share: a JSON body required where one is read, and storage failures as 503s.
 */
import type { MiddlewareHandler } from 'hono'
import { HTTPException } from 'hono/http-exception'
import { WaitingRoomError } from '../errors.ts'

const JSON_MEDIA_TYPE = /^application\/([\w.-]+\+)?json$/i

/**
 * Without a JSON Content-Type the validator would see `{}` — a PATCH that silently changes nothing.
 * Refuse it instead.
 */
export const requireJson: MiddlewareHandler = async (c, next) => {
  const mediaType = (c.req.header('content-type') ?? '').split(';')[0]!.trim()
  if (!JSON_MEDIA_TYPE.test(mediaType)) {
    return c.json({ error: 'invalid', issues: [{ path: '', message: 'expected a JSON body with Content-Type: application/json' }] }, 415)
  }
  await next()
}

export const fail = (status: 404 | 409 | 501 | 503, error: string, message: string) =>
  new HTTPException(status, { res: Response.json({ error, message }, { status }) })

/** Storage failures become 503 (the admin can retry); validation errors from the settings source pass through. */
export async function fromStorage<T>(work: Promise<T>): Promise<T> {
  try {
    return await work
  } catch (error) {
    if (error instanceof WaitingRoomError) throw error
    throw fail(503, 'storage_unavailable', `the settings storage failed: ${(error as Error)?.message ?? error}`)
  }
}
