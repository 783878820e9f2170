/**
 * Settings → Observability in Chromium (the real browser-mode host, the built renderer): export
 * turned on against the loopback OTLP receiver (test/doubles/otlpReceiver.ts) with a secret
 * header; "Send a test span" shows what the collector answered (accepted, then a 500); the
 * counters move once a call's span is exported; the header's value is sent to the collector
 * and never shown back on the page.
 *
 * Run: npx playwright test test/e2e/observability.spec.ts
 */
import { randomUUID } from 'node:crypto';
import { expect, test } from '@playwright/test';
import { OtlpReceiver } from '../doubles/otlpReceiver.js';
import { hostPerTest } from './support/hostPerTest.js';
import { openView } from './support/navigation.js';

test.describe.configure({ timeout: 120_000 });

// The standard batch delay variable, inherited by the host: spans leave within 50 ms.
process.env.OTEL_BSP_SCHEDULE_DELAY = '50';

const e2e = hostPerTest('mh-e2e-otel-');
const HEADER_VALUE = 'otel-e2e-header-value-5b1d';

let receiver: OtlpReceiver;

test.beforeAll(async () => {
  receiver = await OtlpReceiver.start();
});

test.afterAll(async () => {
  await receiver?.close();
});

test('export on against a collector: the test span’s answer, the counters, and a header value never shown', async ({
  page,
}) => {
  await page.goto(e2e.host.url);
  await openView(page, 'Settings');
  const card = page.getByRole('region', { name: 'Observability' });
  // "Spans exported", the first counter.
  const counters = card.getByLabel('Export since the app started').locator('dd').first();
  await expect(counters).toHaveText('0');

  await card.getByRole('switch', { name: /Export traces with OpenTelemetry/ }).check();
  await card.getByLabel('OTLP endpoint').fill(receiver.url.replace(/\/v1\/traces$/, ''));
  await card.getByLabel('Protocol').selectOption('http/json');
  await card.getByRole('checkbox', { name: /Export the MCP duration metrics too/ }).check();
  await card.getByRole('button', { name: 'Add a header' }).click();
  await card.getByLabel('Header 1 name').fill('x-collector-key');
  await card.getByLabel('Header 1 value').fill(HEADER_VALUE);
  await card.getByRole('button', { name: 'Save' }).click();
  await expect(page.getByText('Traces are exported to your collector.')).toBeVisible();
  // Saved: the value is kept in the secret store and the field is empty again.
  await expect(card.getByLabel('Header 1 value')).toHaveValue('');
  await expect(card.getByLabel('Header 1 value')).toHaveAttribute('placeholder', 'saved — type to replace');

  await card.getByRole('button', { name: 'Send a test span' }).click();
  await expect(card.getByRole('status')).toContainText('The collector accepted the test span');
  const testTrace = /trace ([0-9a-f]{32})/.exec((await card.getByRole('status').textContent()) ?? '')?.[1];
  const tested = await receiver.waitFor((s) => s.traceId === testTrace);
  expect(tested.name).toBe('miniharness test span');
  expect(receiver.requests.at(-1)?.headers['x-collector-key']).toBe(HEADER_VALUE);

  // A call (a built-in tool, refused: a path outside the allowed folders) is traced, so its span is exported.
  await e2e.bridge.call('tools.call', {
    name: 'read_file',
    serverId: 'local',
    args: { path: `/nonexistent-${randomUUID()}/note.txt` },
    callId: randomUUID(),
  });
  await receiver.waitFor((s) => s.name === 'execute_tool read_file');
  // The counters are read again after each test span.
  await expect(async () => {
    await card.getByRole('button', { name: 'Send a test span' }).click();
    await expect(counters).not.toHaveText('0', { timeout: 1_000 });
  }).toPass();

  // A collector that refuses: its answer is shown, and the header value it quotes is not.
  receiver.mode = 'error500';
  try {
    await card.getByRole('button', { name: 'Send a test span' }).click();
    await expect(card.getByRole('status')).toContainText('500');
    await expect(card.getByRole('status')).toContainText('collector exploded');
  } finally {
    receiver.mode = 'ok';
  }
  expect(await page.content()).not.toContain(HEADER_VALUE);
  await page.reload();
  await openView(page, 'Settings');
  await expect(card.getByLabel('Header 1 name')).toHaveValue('x-collector-key');
  await expect(card.getByRole('checkbox', { name: /Export the MCP duration metrics too/ })).toBeChecked();
  expect(await page.content()).not.toContain(HEADER_VALUE);
});
