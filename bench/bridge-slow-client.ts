/**
 * Benchmark: memory of the browser-mode host while one page stops reading.
 *
 * Starts the real host process (`electron/web/cli.ts`) over a scratch data folder, adds a real
 * stdio server whose `flood` tool writes to its stderr, and opens two pages' WebSockets: one
 * reads normally (it also drives the calls), the other pauses its socket and never reads, like
 * a frozen tab. The server then writes BENCH_FLOOD_MB (default 100) MB of log lines. The host's
 * RSS is sampled before, after each chunk, and after; then the frozen page reads again and the
 * bench counts what it got: the lines it received plus the lines the host reported dropped.
 * Before the bounded outbox, RSS grew with everything queued for the frozen page (342 → 721 MB
 * in the issue); now it should stay flat.
 *
 * Prints a table, then one JSON line. Run: npm run bench:bridge
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import WebSocket from 'ws';
import { BRIDGE_PATH, BRIDGE_PROTOCOL } from '../shared/bridge.js';
import { Bridge } from '../test/e2e/support/bridge.js';
import { startWebHost } from '../test/e2e/support/webHost.js';
import { PROJECT_ROOT } from '../test/helpers/fixtures.js';

const FLOOD_MB = Number(process.env.BENCH_FLOOD_MB ?? 100);
const CHUNKS = 10;
const WIDTH = 1_000;
const FLOOD_SERVER = join(PROJECT_ROOT, 'test', 'doubles', 'servers', 'stderrFloodServer.ts');

function rssMb(pid: number): number {
  return Math.round(Number(execFileSync('ps', ['-o', 'rss=', '-p', String(pid)], { encoding: 'utf8' }).trim()) / 1024);
}

const work = mkdtempSync(join(tmpdir(), 'mh-bench-bridge-'));
const host = await startWebHost({ dataDir: join(work, 'data') });
const pid = host.pid!;
try {
  const control = await Bridge.connect(host);
  await control.ok('servers.save', {
    mode: 'create',
    config: {
      id: 'flood',
      name: 'Flood',
      transport: 'stdio',
      command: process.execPath,
      args: ['--import', 'tsx', FLOOD_SERVER],
      cwd: PROJECT_ROOT,
    },
  });
  const floodListed = async () => {
    for (let i = 0; i < 600; i++) {
      const { tools } = await control.ok<{ tools: Array<{ name: string; serverId: string }> }>('tools.list', {});
      if (tools.some((t) => t.serverId === 'flood')) return;
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error('the flood server never listed its tool');
  };
  await floodListed();
  // Trusted, so its read-only tool runs without asking (the change reconnects the server).
  await control.ok('permissions.setServerTrust', { serverId: 'flood', trusted: true });
  await floodListed();

  // The frozen page: connected, then never reads again.
  const frozen = new WebSocket(
    `${host.origin.replace(/^http/, 'ws')}${BRIDGE_PATH}?token=${encodeURIComponent(host.token)}`,
    [BRIDGE_PROTOCOL],
    { origin: host.origin },
  );
  let frozenLines = 0;
  let frozenDropped = 0;
  let frozenDroppedEvents = 0;
  frozen.on('message', (data) => {
    const frame = JSON.parse(data.toString()) as {
      t: string;
      event?: string;
      payload?: { serverId?: string; count?: number };
    };
    if (frame.t !== 'event' || frame.payload?.serverId !== 'flood') return;
    if (frame.event === 'server.log') frozenLines += 1;
    if (frame.event === 'bridge.dropped') {
      frozenDropped += frame.payload.count ?? 0;
      frozenDroppedEvents += 1;
    }
  });
  await new Promise((resolve, reject) => frozen.once('open', resolve).once('error', reject));
  frozen.pause();

  const before = rssMb(pid);
  const samples: number[] = [];
  const linesPerChunk = Math.ceil((FLOOD_MB * 1024 * 1024) / CHUNKS / (WIDTH + 12));
  const started = Date.now();
  for (let chunk = 0; chunk < CHUNKS; chunk++) {
    await control.ok('tools.call', {
      name: 'flood',
      serverId: 'flood',
      args: { lines: linesPerChunk, width: WIDTH, tag: `c${chunk}` },
      callId: `bench-flood-${chunk}`,
    });
    samples.push(rssMb(pid));
  }
  const floodMs = Date.now() - started;
  const after = rssMb(pid);

  // The frozen page reads again: it gets the lines sent before it fell behind, then the count of the rest.
  frozen.resume();
  await control.ok('app.info', {});
  const deadline = Date.now() + 60_000;
  while (frozenDroppedEvents === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  const totalLines = linesPerChunk * CHUNKS;
  const peak = Math.max(before, ...samples, after);

  const rows = [
    ['measure', 'value'],
    ['flooded', `${FLOOD_MB} MB (${totalLines} lines of ${WIDTH} chars, ${CHUNKS} calls)`],
    ['flood time', `${(floodMs / 1000).toFixed(1)} s`],
    ['host RSS before', `${before} MB`],
    ['host RSS per chunk', samples.map((s) => `${s}`).join(' ') + ' MB'],
    ['host RSS peak', `${peak} MB`],
    ['host RSS after', `${after} MB`],
    ['frozen page: lines received', String(frozenLines)],
    ['frozen page: lines reported dropped', String(frozenDropped)],
  ];
  const widths = rows[0]!.map((_, c) => Math.max(...rows.map((r) => r[c]!.length)));
  for (const row of rows) console.log(row.map((cell, c) => cell.padEnd(widths[c]!)).join('  '));
  console.log(`(${process.platform}, ${cpus().length} cores; RSS of the host process only, not of the flood server)`);
  console.log(
    JSON.stringify({
      bench: 'bridge-slow-client',
      floodMb: FLOOD_MB,
      lines: totalLines,
      floodMs,
      rssBeforeMb: before,
      rssPeakMb: peak,
      rssAfterMb: after,
      rssSamplesMb: samples,
      frozenLinesReceived: frozenLines,
      frozenLinesDropped: frozenDropped,
    }),
  );
  frozen.close();
  control.close();
} finally {
  await host.stop();
  rmSync(work, { recursive: true, force: true });
}
