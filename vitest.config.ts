import { availableParallelism } from 'node:os'
import { defineConfig } from 'vitest/config'
import { testRuntimes } from './test/runtimes/vite-plugin.ts'

const INCLUDE = ['src/**/*.test.ts', 'adapters/**/*.test.ts', 'test/**/*.test.ts', 'examples/**/*.test.ts', 'bin/**/*.test.ts']
const EXCLUDE = ['**/node_modules/**', '**/*.deno.test.ts', '**/*.bun.test.ts', 'test/load/**', 'test/package/**']
/**
 * Files that judge real elapsed time (process fleets with real sync intervals, "served within 300 ms",
 * origin timeouts, a CPU-heavy case under a 60 s bound): they run one at a time, after the others, with no
 * other test file competing for the CPU — as every file did before the split. On a machine loaded by
 * other work some of them failed next to a second file and passed alone.
 */
const ALONE = ['test/breaker/**/*.test.ts', 'test/proxy-h1.test.ts']

export default defineConfig({
  // miniflare, playwright-core, edge-runtime and better-sqlite3 are installed in test/runtimes/, not the root.
  plugins: [testRuntimes()],
  test: {
    testTimeout: 30_000,
    projects: [
      {
        extends: true,
        test: {
          name: 'parallel',
          include: INCLUDE,
          exclude: [...EXCLUDE, ...ALONE],
          // Vitest's default is a worker per core less one: ONE worker on a 2-core CI machine, so every file
          // waited for the one before, though many spend their time waiting on child processes, servers,
          // Chromium and sockets rather than on the CPU. At least two files at a time.
          maxWorkers: Math.max(2, availableParallelism() - 1),
          // Group 0 runs first, to its end; then group 1 (`alone`): projects of one group run at the same time.
          sequence: { groupOrder: 0 },
        },
      },
      { extends: true, test: { name: 'alone', include: ALONE, exclude: EXCLUDE, maxWorkers: 1, sequence: { groupOrder: 1 } } },
    ],
  },
})
