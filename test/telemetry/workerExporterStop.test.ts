/**
 * The export worker's shutdown is bounded on its own (workerExporter.ts): a worker that never
 * answers is stopped after `stopWaitMs`, and what it had counts as failed. Before, the shutdown
 * awaited the worker's answer without a bound (only ExportPipeline bounded it): this test's
 * shutdown never resolved.
 */
import { join } from 'node:path';
import type { ExportResult } from '@opentelemetry/core';
import { ExportResultCode } from '@opentelemetry/core';
import { expect, it } from 'vitest';
import { WorkerSpanExporter } from '../../electron/telemetry/workerExporter.js';
import { PROJECT_ROOT } from '../helpers/fixtures.js';

const SILENT = join(PROJECT_ROOT, 'test', 'doubles', 'silentExportWorker.ts');

it('a worker that never answers is stopped within the shutdown bound; its export counts as failed', async () => {
  const exporter = new WorkerSpanExporter(
    {
      protocol: 'http/protobuf',
      url: 'http://127.0.0.1:9/v1/traces',
      headers: {},
      timeoutMillis: 600_000,
      resource: {},
      otlpExportWorker: true,
    },
    () => {
      throw new Error('no in-thread fallback expected: the worker runs');
    },
    { entry: SILENT, stopWaitMs: 100 },
  );
  await exporter.ready;
  const result = new Promise<ExportResult>((resolve) => exporter.export([], resolve));
  await exporter.shutdown();
  const settled = await result;
  expect(settled.code).toBe(ExportResultCode.FAILED);
  expect(settled.error?.message).toMatch(/stopped at shutdown/);
}, 10_000);
