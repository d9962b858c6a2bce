/// <reference types="node" />
/**
 * break20: the three proxies under attack, each a real process in front of a raw origin (../breakh1/helpers.ts):
 * the CLI on Node, the CLI on Bun, and `createProxyApp` on `Bun.serve` (./bunserve-proxy.ts).
 */
import type { Socket } from 'node:net'
import { join } from 'node:path'
import { afterAll, beforeAll } from 'vitest'
import { BUN, mint, rawOrigin, startCli, startListening, stopAll, type Cli, type RawOrigin } from '../breakh1/helpers.ts'

export { seededRandom } from '../../../src/admission/plan.ts'

export type Target = 'node-cli' | 'bun-cli' | 'bun-serve'
export const TARGETS: Target[] = ['node-cli', 'bun-cli', 'bun-serve']

/** A proxy of this kind in front of `origin`. */
export function startTarget(target: Target, origin: string): Promise<Cli> {
  if (target === 'bun-serve') return startListening(BUN, [join(import.meta.dirname, 'bunserve-proxy.ts'), origin])
  return startCli(origin, target === 'bun-cli' ? 'bun' : 'node')
}

/** An admitted ticket (../breakh1/helpers.ts `mint`), asked again while a cold proxy on a loaded machine answers past mint's 400 ms wait. */
export async function ticketFor(port: number): Promise<string> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await mint(port)
    } catch (error) {
      if (attempt === 5) throw error
    }
  }
}

export interface Proxied { origin: RawOrigin; port: number; ticket: string }

/** Inside a describe: a raw origin answering with `handler` (as rawOrigin's), a proxy of `target` in front of it and an admitted ticket, set up before the tests and stopped after. */
export function proxied(target: Target, handler: (socket: Socket, head: string) => unknown): Proxied {
  const self = { port: 0, ticket: '' } as Proxied
  beforeAll(async () => {
    self.origin = await rawOrigin((socket, head) => void handler(socket, head))
    self.port = (await startTarget(target, self.origin.url)).port
    self.ticket = await ticketFor(self.port)
  }, 30_000)
  afterAll(() => { stopAll(); self.origin?.close() })
  return self
}
