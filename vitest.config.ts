import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['packages/*/src/**/*.test.ts', 'e2e/**/*.test.ts', 'bench/**/*.test.ts'],
    // Every answer of a server in the test process is checked against its OpenAPI document.
    setupFiles: ['packages/server/test/contract-hook.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
