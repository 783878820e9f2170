/**
 * Static checks on what `npm run build` wrote to out/ — what a desktop would load, checked where
 * no Electron runs: the sandboxed preload needs nothing but `electron`, the main bundle loads only
 * runtime dependencies (a devDependency would be missing from the packaged app), and the built
 * page carries the app's one CSP (shared/csp.ts) and no inline script that policy would block.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { Worker } from 'node:worker_threads';
import Database from 'better-sqlite3';
import { isBuiltin } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { expect, test } from '@playwright/test';
import { META_CONTENT_SECURITY_POLICY, cspMetaOf } from '../../../shared/csp.js';
import type { CallRecord, ExportWorkerData, ExportWorkerRequest } from '../../../electron/telemetry/exportWorker.js';
import { OtlpReceiver } from '../../doubles/otlpReceiver.js';
import { ROOT, buildAppOnce } from '../support/webHost.js';
import { PRELOAD_BUNDLE, RENDERER_INDEX } from './support/builtMain.js';
import { globalUses, isBare, moduleReferences, packageOf } from './support/bundleScan.js';

/** Node's globals: a sandboxed preload has no Node.js (Electron polyfills only a sliver of some). */
const NODE_GLOBALS = [
  'process',
  'Buffer',
  'global',
  '__dirname',
  '__filename',
  'module',
  'exports',
  'setImmediate',
  'clearImmediate',
  'queueMicrotask',
];

const MAIN_DIR = join(ROOT, 'out', 'main');

test.beforeAll(() => buildAppOnce());

test('the sandboxed preload requires only electron and uses no Node globals', () => {
  const references = moduleReferences(PRELOAD_BUNDLE);
  expect(
    references.filter((r) => r.kind !== 'require' || r.specifier !== 'electron'),
    'anything but require("electron")',
  ).toEqual([]);
  expect(references.length, 'it does require electron').toBeGreaterThan(0);
  expect(globalUses(PRELOAD_BUNDLE, NODE_GLOBALS), 'Node globals in out/preload/preload.cjs').toEqual([]);
});

test('every bare import of the main bundle is electron, a Node built-in or a runtime dependency', () => {
  const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { dependencies: Record<string, string> };
  const runtime = new Set(Object.keys(pkg.dependencies));
  const files = readdirSync(MAIN_DIR).filter((name) => /\.(?:m|c)?js$/.test(name));
  expect(files).toContain('main.js');
  const wrong: string[] = [];
  for (const name of files) {
    const file = join(MAIN_DIR, name);
    for (const ref of moduleReferences(file)) {
      const where = `out/main/${name}:${ref.line} ${ref.kind} '${ref.specifier}'`;
      if (ref.specifier === '<computed>') wrong.push(`${where}: a computed module name`);
      else if (!isBare(ref.specifier)) {
        if (/^\.{1,2}\//.test(ref.specifier) && !existsSync(resolve(dirname(file), ref.specifier)))
          wrong.push(`${where}: no such file`);
      } else if (ref.specifier === 'electron' || isBuiltin(ref.specifier)) continue;
      else if (!runtime.has(packageOf(ref.specifier)))
        wrong.push(`${where}: ${packageOf(ref.specifier)} is not in package.json "dependencies"`);
    }
  }
  expect(wrong).toEqual([]);
});

test("the built page's meta CSP is shared/csp.ts's policy, and it has no inline script", () => {
  const html = readFileSync(RENDERER_INDEX, 'utf8');
  expect(cspMetaOf(html)).toBe(META_CONTENT_SECURITY_POLICY);
  const scripts = [...html.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/gi)];
  expect(scripts.length).toBeGreaterThan(0);
  for (const [tag, attributes, body] of scripts) {
    expect(attributes, tag).toMatch(/\bsrc="\.\/assets\//);
    expect(body?.trim(), tag).toBe('');
  }
  expect(html).not.toMatch(/\son[a-z]+="/i);
});

test("the WAL checkpointer's worker, as built, checkpoints a database file on a connection of its own", async () => {
  const dir = mkdtempSync(join(tmpdir(), 'mh-wal-worker-'));
  try {
    const file = join(dir, 'app.db');
    const db = new Database(file);
    db.pragma('journal_mode = WAL');
    db.pragma('wal_autocheckpoint = 0');
    db.exec('CREATE TABLE t (x TEXT)');
    for (let i = 0; i < 50; i++) db.prepare('INSERT INTO t VALUES (?)').run('x'.repeat(1000));
    const closed = new SharedArrayBuffer(4);
    const worker = new Worker(join(MAIN_DIR, 'walCheckpointWorker.js'), { workerData: { file, options: {}, closed } });
    const reply = await new Promise<unknown>((resolvePromise, reject) => {
      worker.once('message', resolvePromise);
      worker.once('error', reject);
      worker.postMessage('checkpoint');
    });
    expect(reply).toMatchObject({ result: { busy: 0 } });
    const { result } = reply as { result: { log: number; checkpointed: number } };
    expect(result.log).toBeGreaterThan(0);
    expect(result.checkpointed).toBe(result.log);
    worker.postMessage('close');
    await new Promise((r) => worker.once('exit', r));
    expect(new Int32Array(closed)[0]).toBe(1);
    db.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('the OTLP export worker, as built, sends a span record to a collector and answers with its result', async () => {
  const receiver = await OtlpReceiver.start();
  const worker = new Worker(join(MAIN_DIR, 'exportWorker.js'), {
    workerData: {
      protocol: 'http/protobuf',
      url: receiver.url,
      headers: {},
      timeoutMillis: 10_000,
      resource: { 'service.name': 'bundle-check' },
      otlpExportWorker: true,
    } satisfies ExportWorkerData,
  });
  try {
    const replies: unknown[] = [];
    const settled = new Promise<unknown>((resolvePromise, reject) => {
      worker.on('message', (reply: { settled?: number }) => {
        replies.push(reply);
        if (reply.settled === 1) resolvePromise(reply);
      });
      worker.once('error', reject);
    });
    const now: [number, number] = [Math.floor(Date.now() / 1000), 0];
    worker.postMessage({
      export: 1,
      spans: [
        {
          name: 'tools/call echo',
          kind: 2,
          context: { traceId: '4bf92f3577b34da6a3ce929d0e0e4736', spanId: '00f067aa0ba902b7', traceFlags: 1 },
          startTime: now,
          endTime: now,
          duration: [0, 0],
          attributes: { 'mcp.method.name': 'tools/call' },
          status: { code: 0 },
          events: [],
          links: [],
          dropped: [0, 0, 0],
          scope: { name: 'miniharness' },
        },
      ],
    });
    expect(await settled).toMatchObject({ settled: 1, ok: true });
    expect(replies[0]).toEqual({ ready: true });
    const span = await receiver.waitFor((s) => s.name === 'tools/call echo');
    expect(span.attributes['mcp.method.name']).toBe('tools/call');
    expect(span.resource['service.name']).toBe('bundle-check');
    // A call's plain record: the worker makes its span (with the ids given) and exports it on a flush.
    const flushed = new Promise<void>((resolvePromise) =>
      worker.on('message', (reply: { flushed?: number }) => reply.flushed === 2 && resolvePromise()),
    );
    const record: CallRecord = {
      span: true,
      name: 'tools/call worker-made',
      kind: 2,
      traceId: '4bf92f3577b34da6a3ce929d0e0e4737',
      spanId: '00f067aa0ba902b8',
      start: Date.now(),
      end: Date.now(),
      attributes: { 'mcp.method.name': 'tools/call' },
    };
    worker.postMessage({ calls: [record], served: [] } satisfies ExportWorkerRequest);
    worker.postMessage({ flush: 2 } satisfies ExportWorkerRequest);
    await flushed;
    const made = await receiver.waitFor((s) => s.name === 'tools/call worker-made');
    expect(made).toMatchObject({ traceId: record.traceId, spanId: record.spanId });
  } finally {
    await worker.terminate();
    await receiver.close();
  }
});
