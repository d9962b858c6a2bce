import { availableParallelism } from 'node:os'
import { defineConfig } from 'vitest/config'
import { ALONE as ALONE_FILES } from './test/support/alone.ts'
import { testRuntimes } from './test/runtimes/vite-plugin.ts'

const INCLUDE = ['src/**/*.test.ts', 'adapters/**/*.test.ts', 'test/**/*.test.ts', 'examples/**/*.test.ts', 'bin/**/*.test.ts']
const EXCLUDE = ['**/node_modules/**', '**/*.deno.test.ts', '**/*.bun.test.ts', 'test/load/**', 'test/package/**']
// Files that judge real elapsed time run one at a time, after the others (project `alone`): the list and the
// reason for each is in test/support/alone.ts; every other file runs in `parallel`.
const ALONE = Object.keys(ALONE_FILES)

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
