import { defineConfig } from 'vitest/config'

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'adapters/**/*.test.ts', 'test/**/*.test.ts', 'examples/**/*.test.ts', 'bin/**/*.test.ts'],
    exclude: ['**/node_modules/**', '**/*.deno.test.ts', '**/*.bun.test.ts', 'test/load/**'],
    testTimeout: 30_000,
  },
})
