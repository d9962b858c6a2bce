/**
 * @module
 * The Worker: the app, and the two Durable Object classes wrangler.jsonc binds (a Worker must export
 * every class it declares).
 */
import { createApp } from './app.ts'

export { WaitingRoomCounter, WaitingRoomGlobal } from 'hono-waiting-room/cloudflare'

export default createApp()
