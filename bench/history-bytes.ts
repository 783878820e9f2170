/**
 * Figures for issue 8 §7: how big a History page reply is, and how much memory it costs, when a
 * session holds three 9 MB results. The real core (`buildCore`) over a scratch data folder;
 * the records are written through the checkpoint store as the pipeline writes them.
 *
 * Prints a table, then one JSON line. Run: npx tsx bench/history-bytes.ts
 * Env: BENCH_RESULT_MB (9), BENCH_RESULTS (3).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildScratchCore } from '../test/helpers/scratchCore.js';
import { SqliteCheckpointStore } from '../electron/checkpoints/sqliteStore.js';
import { openAppDatabase } from '../electron/core/database.js';

const MB = Number(process.env.BENCH_RESULT_MB ?? 9);
const COUNT = Number(process.env.BENCH_RESULTS ?? 3);
const MiB = 1024 * 1024;

function rssMiB(): number {
  return process.memoryUsage().rss / MiB;
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'mh-bench-history-'));
  const dataDir = join(dir, 'data');
  const core = await buildScratchCore(dir, { version: 'bench', secretsLabel: 'Bench' });
  try {
    await core.start();
    const db = openAppDatabase(join(dataDir, 'miniharness.db'));
    const store = new SqliteCheckpointStore(db);
    for (let n = 0; n < COUNT; n++) {
      const claim = store.claim({
        sessionId: 'bench',
        callId: `bench-call-${n}`,
        userId: 'gui',
        toolName: 'big',
        serverId: 'fx',
        argsHash: `h${n}`,
        args: { mb: MB },
        traceId: `t${n}`,
      });
      if (claim.kind !== 'owner') throw new Error('expected owner');
      store.complete('bench', `bench-call-${n}`, claim.lease, {
        content: [{ type: 'text', text: String(n).repeat(MB * MiB) }],
        structuredContent: undefined,
        isError: false,
      });
    }
    // What a page carried before: every record whole.
    const wholeBytes = Buffer.byteLength(
      JSON.stringify(Array.from({ length: COUNT }, (_, n) => store.get('bench', `bench-call-${n}`))),
    );
    db.close();

    global.gc?.();
    const before = rssMiB();
    const started = performance.now();
    const page = await core.dispatch('history.page', { sessionId: 'bench', limit: 100 });
    const pageMs = performance.now() - started;
    const pageBytes = Buffer.byteLength(JSON.stringify(page));
    const afterPage = rssMiB();
    const getStarted = performance.now();
    const whole = await core.dispatch('history.get', { sessionId: 'bench', callId: 'bench-call-0' });
    const getMs = performance.now() - getStarted;
    const getBytes = Buffer.byteLength(JSON.stringify(whole));
    const afterGet = rssMiB();

    const rows = [
      ['page reply (bytes)', pageBytes],
      ['the same records whole (bytes)', wholeBytes],
      ['page time (ms)', pageMs.toFixed(1)],
      ['RSS before page (MiB)', before.toFixed(0)],
      ['RSS after page (MiB)', afterPage.toFixed(0)],
      ['history.get of one record (bytes)', getBytes],
      ['history.get time (ms)', getMs.toFixed(1)],
      ['RSS after history.get (MiB)', afterGet.toFixed(0)],
    ] as const;
    console.log(`History with ${COUNT} results of ${MB} MB`);
    for (const [name, value] of rows) console.log(`${name.padEnd(36)} ${value}`);
    console.log(
      JSON.stringify({
        bench: 'history-bytes',
        results: COUNT,
        resultMb: MB,
        pageBytes,
        wholeBytes,
        pageMs,
        rssBeforeMiB: before,
        rssAfterPageMiB: afterPage,
        getBytes,
        getMs,
        rssAfterGetMiB: afterGet,
      }),
    );
  } finally {
    await core.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
