import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { coordinatorConformance } from '../../test/conformance/coordinator-suite.ts'
import { referencesConformance } from '../../test/conformance/references-suite.ts'
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

// One process: every worker shares the coordinator (`reopen` answers it again); references pruned by the reports' clock.
let references: MemoryCoordinator
referencesConformance({ describe, it, expect, beforeAll, afterAll }, {
  name: 'memory',
  create: () => (references = memoryCoordinator()),
  reopen: (previous) => previous,
  storedReferences: async (roomId) => references.referenceMinutes(roomId).map((minute) => ({ minute })),
})
