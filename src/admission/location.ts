/**
 * @module
 * Where a request is decided. Cloudflare puts the colo on `request.cf`; Vercel names the edge region
 * first in `x-vercel-id` (`cdg1::iad1::…`) and in `VERCEL_REGION`; Deno Deploy sets `DENO_REGION`.
 */
import type { Context } from 'hono'

interface Platform {
  /** `DENO_REGION` or `VERCEL_REGION`; null when neither is set or the runtime forbids env access. */
  region: string | null
  /** Only on Vercel is `x-vercel-id` set by the platform; elsewhere a client could forge it. */
  vercel: boolean
}

let platform: Platform | undefined

function readPlatform(): Platform {
  if (platform) return platform
  const global = globalThis as {
    Deno?: { env: { get(name: string): string | undefined } }
    process?: { env?: Record<string, string | undefined> }
  }
  const read = (name: string): string | undefined => {
    try {
      return global.Deno?.env.get(name) ?? global.process?.env?.[name]
    } catch {
      return undefined // Deno without --allow-env
    }
  }
  const vercelRegion = read('VERCEL_REGION')
  platform = { region: read('DENO_REGION') || vercelRegion || null, vercel: Boolean(read('VERCEL') || vercelRegion) }
  return platform
}

export function defaultLocation(c: Context): string {
  const cf = (c.req.raw as { cf?: { colo?: unknown } }).cf
  if (typeof cf?.colo === 'string' && cf.colo) return cf.colo
  const { region, vercel } = readPlatform()
  if (vercel) {
    const edge = c.req.header('x-vercel-id')?.split(':')[0]
    if (edge) return edge
  }
  return region ?? 'local'
}
