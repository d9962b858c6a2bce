/**
 * @module
 * The admin API reads at most {@link ADMIN_BODY_LIMIT} bytes of a request body — {@link ADMIN_TEMPLATE_BODY_LIMIT}
 * on the routes that take a page template (`POST /preview`, `POST /events`; a template may hold up to 200 000
 * characters). The largest legitimate body fits; a bigger one — an 11 MB condition tree — is refused with 413
 * before it is parsed, in the admin API's error shape.
 */
import type { MiddlewareHandler } from 'hono'
import { bodyLimit } from 'hono/body-limit'

/** 64 KiB: every admin body but those holding a template. */
export const ADMIN_BODY_LIMIT = 64 * 1024
/** 256 KiB: `POST /preview` and `POST /events`, which may carry a template. */
export const ADMIN_TEMPLATE_BODY_LIMIT = 256 * 1024

const limitOf = (maxSize: number) =>
  bodyLimit({
    maxSize,
    onError: (c) => c.json({ error: 'payload_too_large', message: `this admin route takes bodies of at most ${maxSize} bytes` }, 413),
  })
const small = limitOf(ADMIN_BODY_LIMIT)
const large = limitOf(ADMIN_TEMPLATE_BODY_LIMIT)

export const adminBodyLimit: MiddlewareHandler = (c, next) => (/\/(preview|events)\/?$/.test(c.req.path) ? large(c, next) : small(c, next))
