#!/usr/bin/env node
/// <reference types="node" />
/**
 * @module
 * The `hono-waiting-room` executable: `proxy` (default), `demo`, `simulate`. See `--help`.
 */
import { main } from './cli.ts'

const status = await main(process.argv.slice(2))
process.exitCode = status
// A server command has closed its server by now; don't let a stray timer keep the process up.
setTimeout(() => process.exit(status), 1000).unref()
