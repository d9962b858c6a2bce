import { availableParallelism } from 'node:os'
import { defineConfig } from 'vitest/config'
import { testRuntimes } from './test/runtimes/vite-plugin.ts'

export default defineConfig({
  // miniflare, playwright-core, edge-runtime and better-sqlite3 are installed in test/runtimes/, not the root.
  plugins: [testRuntimes()],
  test: {
    include: ['src/**/*.test.ts', 'adapters/**/*.test.ts', 'test/**/*.test.ts', 'examples/**/*.test.ts', 'bin/**/*.test.ts'],
    exclude: ['**/node_modules/**', '**/*.deno.test.ts', '**/*.bun.test.ts', 'test/load/**', 'test/package/**'],
    testTimeout: 30_000,
    // Vitest's default is one worker per core less one, which is a single worker on a 2-core CI machine: every
    // file would wait for the one before, though many spend their time waiting on child processes, servers,
    // Chromium and sockets rather than on the CPU. At least two files at a time (the default on larger machines).
    maxWorkers: Math.max(2, availableParallelism() - 1),
  },
})
