/**
 * @module
 * The Worker the conformance suite talks to: `POST /coordinator/<method>` runs that method of a
 * `durableObjectCoordinator` inside workerd and answers with its JSON result, so counters, aggregation,
 * the Cache API and the objects all run in the real runtime. `?globalBinding=` misnames the global binding;
 * `?exchangeIntervalMs=` sets that option (how soon a location object's alarm exchanges after a grant).
 */
import type { Coordinator } from '../../../src/coordination/coordinator.ts'
import { durableObjectCoordinator } from '../coordinator.ts'
import type { DurableObjectNamespaceLike } from '../protocol.ts'
import { objectTestRoute } from './counting-objects.ts'

export { CountingCounter as WaitingRoomCounter, CountingGlobal as WaitingRoomGlobal } from './counting-objects.ts'

interface Env {
  WR_COUNTER: DurableObjectNamespaceLike
  WR_GLOBAL: DurableObjectNamespaceLike
}

const METHODS = new Set(['increment', 'sync', 'takeSlot', 'recordHistory', 'readHistory'])

export default {
  async fetch(request: Request, env: Env): Promise<Response> {
    const testRoute = await objectTestRoute(request, env as never)
    if (testRoute) return testRoute
    const url = new URL(request.url)
    const method = url.pathname.slice('/coordinator/'.length)
    if (!METHODS.has(method)) return new Response(`unknown method ${method}`, { status: 404 })
    const globalBinding = url.searchParams.get('globalBinding')
    const exchangeIntervalMs = url.searchParams.get('exchangeIntervalMs')
    const coordinator = durableObjectCoordinator({
      counters: env.WR_COUNTER,
      global: env.WR_GLOBAL,
      ...(globalBinding === null ? {} : { bindingNames: { global: globalBinding } }),
      ...(exchangeIntervalMs === null ? {} : { exchangeIntervalMs: Number(exchangeIntervalMs) }),
    })
    try {
      const call = coordinator[method as 'increment'] as (argument: unknown) => Promise<unknown>
      return Response.json((await call.call(coordinator as Coordinator, await request.json())) ?? null)
    } catch (error) {
      return Response.json({ error: (error as Error).message, code: (error as { code?: string }).code }, { status: 500 })
    }
  },
}
