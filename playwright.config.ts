import { defineConfig } from '@playwright/test';

// End-to-end tests drive the real UI in Debian's Chromium (never a downloaded browser) against
// the browser-mode host and real MCP test servers. Each test starts its own host.
// The hosts the tests start put their agent gateway on a free port (the default one may be in use).
process.env.MINIHARNESS_GATEWAY_PORT ??= '0';

export default defineConfig({
  testDir: 'test/e2e',
  outputDir: 'test-results',
  timeout: 60_000,
  expect: { timeout: 10_000 },
  fullyParallel: false,
  // Two cores: every test runs a host and servers of its own.
  workers: 1,
  retries: 0,
  reporter: [['list'], ['html', { open: 'never', outputFolder: 'playwright-report' }]],
  use: {
    screenshot: 'on',
    trace: 'retain-on-failure',
    viewport: { width: 1280, height: 800 },
    launchOptions: {
      executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
    },
  },
});
