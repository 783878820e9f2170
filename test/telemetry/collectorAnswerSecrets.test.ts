/**
 * A collector's answer quoted in Settings → Observability never shows a header value: neither one saved
 * in the settings nor one the exporters take from `OTEL_EXPORTER_OTLP_HEADERS`, and not a piece of one
 * either (the answer is redacted before it is cut to the window's length). Renaming a header only in
 * its letter case keeps its stored value. A whole core, the real OTLP exporter, the loopback receiver
 * answering 500 with the request's headers echoed in its body.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Core } from '../../electron/core/types.js';
import type { ObservabilityView } from '../../shared/contract/observability.js';
import type { TestSpanAnswer } from '../../electron/telemetry/telemetry.js';
import { OtlpReceiver } from '../doubles/otlpReceiver.js';
import { scratchDir } from '../helpers/fixtures.js';
import { buildScratchCore } from '../helpers/scratchCore.js';

// Long enough that any cut of the echoed body near its start would fall inside them.
const SAVED = `saved-${randomBytes(150).toString('hex')}`;
const FROM_ENV = `env-${randomBytes(150).toString('hex')}`;

const scratch = scratchDir('mh-otel-answer-');
let receiver: OtlpReceiver;
let core: Core;

async function call<T>(channel: string, payload?: unknown): Promise<T> {
  const result = await core.dispatch(channel, payload);
  if (!result.ok) throw new Error(`${channel}: ${result.error.message}`);
  return result.result as T;
}

/** Any 12 characters in a row of `secret` found in `text`. */
function pieceOf(secret: string, text: string): string | undefined {
  for (let at = 0; at + 12 <= secret.length; at += 6) if (text.includes(secret.slice(at, at + 12))) return secret;
  return undefined;
}

beforeAll(async () => {
  process.env.OTEL_EXPORTER_OTLP_HEADERS = `x-env-key=${FROM_ENV}`;
  receiver = await OtlpReceiver.start();
  core = await buildScratchCore(scratch.dir, { version: '0.0.0-test', secretsLabel: 'otel answer test' });
}, 60_000);
afterAll(async () => {
  delete process.env.OTEL_EXPORTER_OTLP_HEADERS;
  await core?.close();
  await receiver?.close();
  scratch.cleanup();
});

const settings = (headers: Array<{ name: string; value?: string }>) => ({
  enabled: false,
  protocol: 'http/json',
  endpoint: receiver.url,
  serviceName: 'answer',
  sampleRatio: 1,
  headers,
  exportPayloads: false,
  viewerUrl: '',
});

it('a 500 echoing the request headers is quoted without any piece of a saved or environment header value', async () => {
  await call('observability.set', settings([{ name: 'X-Api-Key', value: SAVED }]));
  receiver.mode = 'error500';
  const answer = await call<TestSpanAnswer>('observability.test', {});
  expect(answer.ok).toBe(false);
  // Both values were sent, so the collector's body did echo them…
  const sent = receiver.requests.at(-1)?.headers ?? {};
  expect([sent['x-api-key'], sent['x-env-key']]).toEqual([SAVED, FROM_ENV]);
  // …and no piece of either reaches the window.
  expect(answer.message).toContain('HTTP 500');
  expect([pieceOf(SAVED, answer.message), pieceOf(FROM_ENV, answer.message)]).toEqual([undefined, undefined]);
  expect(answer.message.length).toBeLessThanOrEqual(301);
});

it('renaming a header only in its letter case keeps its value', async () => {
  await call('observability.set', settings([{ name: 'x-api-key' }]));
  receiver.mode = 'ok';
  const answer = await call<TestSpanAnswer>('observability.test', {});
  expect(answer.ok).toBe(true);
  expect(receiver.requests.at(-1)?.headers['x-api-key']).toBe(SAVED);
  const view = await call<ObservabilityView>('observability.get', {});
  expect(view.headers).toEqual(['x-api-key']);
});
