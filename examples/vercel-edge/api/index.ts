/**
 * @module
 * A Vercel Edge Function: every request to /api/* passes the waiting room first. The room's state is in
 * Upstash Redis over REST (no TCP on the edge); each new user's decision is one request to it.
 */
import { Redis } from '@upstash/redis'
import { upstashCoordinator } from 'hono-waiting-room/upstash'
import { createApp } from '../app.ts'

export const config = { runtime: 'edge' }

// UPSTASH_REDIS_REST_URL / UPSTASH_REDIS_REST_TOKEN (or the KV_REST_API_* pair the Vercel integration
// sets). WAITING_ROOM_PREFIX keeps previews apart from production when they share one database.
const coordinator = upstashCoordinator(Redis.fromEnv(), { prefix: process.env.WAITING_ROOM_PREFIX || undefined })
const app = createApp({ coordinator })

export default (request: Request): Response | Promise<Response> => app.fetch(request)
