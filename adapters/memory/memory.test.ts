import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { coordinatorConformance } from '../../test/conformance/coordinator-suite.ts'
import { memoryCoordinator, type MemoryCoordinator } from './index.ts'

coordinatorConformance({ describe, it, expect, beforeAll, afterAll }, {
  name: 'memory',
  create: () => memoryCoordinator(),
  // An aggregator restart in one process: the location stage is rebuilt from the global stage.
  reopen: (previous) => {
    ;(previous as MemoryCoordinator).restartLocations()
    return previous
  },
})

coordinatorConformance({ describe, it, expect, beforeAll, afterAll }, {
  name: 'memory, global stage restarted, 2 s exchange lag',
  create: () => memoryCoordinator({ exchangeIntervalMs: 2000 }),
  reopen: (previous) => {
    ;(previous as MemoryCoordinator).restartGlobal()
    return previous
  },
  syncsToPropagate: 2,
  propagationStepMs: 2000,
})
