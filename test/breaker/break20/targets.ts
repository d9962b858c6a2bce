/// <reference types="node" />
/**
 * break20: the three proxies under attack, each a real process in front of a raw origin (../breakh1/helpers.ts):
 * the CLI on Node, the CLI on Bun, and `createProxyApp` on `Bun.serve` (./bunserve-proxy.ts).
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { join } from 'node:path'
import { BUN, mint, startCli, stopAll as stopClis, type Cli } from '../breakh1/helpers.ts'

export type Target = 'node-cli' | 'bun-cli' | 'bun-serve'
export const TARGETS: Target[] = ['node-cli', 'bun-cli', 'bun-serve']

const children = new Set<ChildProcess>()

function startBunServe(origin: string): Promise<Cli> {
  const child = spawn(BUN, [join(import.meta.dirname, 'bunserve-proxy.ts'), origin], { stdio: ['ignore', 'pipe', 'pipe'] })
  children.add(child)
  let out = ''
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no start: ${out}`)), 20_000)
    const on = (d: Buffer) => {
      out = (out + d.toString()).slice(-20_000)
      const m = /listening on http:\/\/127\.0\.0\.1:(\d+)/.exec(out)
      if (m) { clearTimeout(timer); resolve({ child, port: Number(m[1]), out: () => out, stop: () => child.kill('SIGKILL') }) }
    }
    child.stdout!.on('data', on)
    child.stderr!.on('data', on)
    child.once('exit', (c) => { clearTimeout(timer); children.delete(child); reject(new Error(`exit ${c}: ${out}`)) })
  })
}

/** A proxy of this kind in front of `origin`. */
export function startTarget(target: Target, origin: string): Promise<Cli> {
  if (target === 'bun-serve') return startBunServe(origin)
  return startCli(origin, target === 'bun-cli' ? 'bun' : 'node')
}

export function stopTargets(): void {
  for (const c of children) c.kill('SIGKILL')
  children.clear()
  stopClis()
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
