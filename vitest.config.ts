import { defineConfig } from 'vitest/config'
import { testRuntimes } from './test/runtimes/vite-plugin.ts'

export default defineConfig({
  // miniflare, playwright-core, edge-runtime and better-sqlite3 are installed in test/runtimes/, not the root.
  plugins: [testRuntimes()],
  test: {
    include: ['src/**/*.test.ts', 'adapters/**/*.test.ts', 'test/**/*.test.ts', 'examples/**/*.test.ts', 'bin/**/*.test.ts'],
    exclude: ['**/node_modules/**', '**/*.deno.test.ts', '**/*.bun.test.ts', 'test/load/**', 'test/package/**'],
    testTimeout: 30_000,
  },
})
