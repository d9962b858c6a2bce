/**
 * @module
 * The few edge-runtime globals the test entries use, typed here: the project's lib is DOM, which has no
 * FetchEvent, and Vercel Edge gives `process.env` but nothing else of `process`.
 */
export interface FetchEventLike extends Event {
  request: Request
  respondWith(response: Response | Promise<Response>): void
}

/** Serves `handler` the way an Edge Function is invoked in edge-runtime. */
export function serveFetch(handler: (request: Request) => Response | Promise<Response>): void {
  addEventListener('fetch', (event) => {
    const fetchEvent = event as FetchEventLike
    fetchEvent.respondWith(handler(fetchEvent.request))
  })
}

/** Environment variables, as Vercel Edge exposes them. */
export function edgeEnv(name: string): string {
  const value = (globalThis as { process?: { env?: Record<string, string | undefined> } }).process?.env?.[name]
  if (value === undefined) throw new Error(`${name} is not set in the edge runtime's process.env`)
  return value
}
