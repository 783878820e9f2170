import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/globalSetup.ts'],
    // Integration tests spawn real server processes; a machine with 2 cores
    // stays responsive with a small number of parallel files.
    pool: 'forks',
    maxWorkers: 2,
    // Every app the tests start (in process or as a host process) puts its agent gateway on a
    // free port, never the fixed default: many run at once, and a person's app may be running.
    env: { MINIHARNESS_GATEWAY_PORT: '0' },
    testTimeout: 30_000,
    hookTimeout: 30_000,
  },
});
