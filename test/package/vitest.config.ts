// `npm run test:package`: the packed package installed and run as users would (see global-setup.ts). Apart
// from the main vitest run: these tests install from npm and build, minutes rather than seconds.
import { fileURLToPath } from 'node:url'
import { defineConfig } from 'vitest/config'
import { testRuntimes } from '../runtimes/vite-plugin.ts'

export default defineConfig({
  root: fileURLToPath(new URL('../../', import.meta.url)),
  plugins: [testRuntimes()],
  test: {
    include: ['test/package/**/*.test.ts'],
    globalSetup: ['test/package/global-setup.ts'],
    // Installs and builds: generous bounds, reached only when something hangs.
    testTimeout: 180_000,
    hookTimeout: 300_000,
    // Two files at a time: most of the work is in child processes (npm, tsc, servers), on two cores.
    maxWorkers: 2,
  },
})
