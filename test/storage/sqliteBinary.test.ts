/**
 * The one SQLite binary: better-sqlite3 13 is a Node-API addon whose prebuilt `.node` file, inside
 * the npm package, loads wherever the app runs — the main thread, the WAL checkpointer's worker
 * thread (walCheckpointer.ts), and a packaged app, which carries the package as installed, with
 * its `.node` files unpacked from the asar archive (electron-builder.yml) and nothing rebuilt.
 */
import { cpSync, existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { Worker } from 'node:worker_threads';
import picomatch from 'picomatch';
import { afterAll, describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../helpers/fixtures.js';

const require = createRequire(import.meta.url);
const packageDir = dirname(require.resolve('better-sqlite3/package.json'));
const scratch = mkdtempSync(join(tmpdir(), 'mh-sqlite-binary-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** The addon files this process has loaded (Linux: its memory maps name them). */
function loadedAddons(): string[] {
  const maps = readFileSync('/proc/self/maps', 'utf8');
  return [...new Set([...maps.matchAll(/\s(\/\S+\.node)$/gm)].map((match) => match[1]!))];
}

/** Opens a database in a new worker thread with the module at `modulePath`; resolves with what it read. */
function inWorker(modulePath: string, file: string): Promise<{ version: string; rows: number }> {
  const source = `
    const { parentPort, workerData } = require('node:worker_threads');
    const Database = require(workerData.modulePath);
    const db = new Database(workerData.file);
    db.pragma('journal_mode = WAL');
    db.exec('CREATE TABLE IF NOT EXISTS t (x)');
    db.prepare('INSERT INTO t VALUES (?)').run(1);
    const result = { version: db.prepare('select sqlite_version() v').get().v, rows: db.prepare('select count(*) n from t').get().n };
    db.close();
    parentPort.postMessage(result);`;
  return new Promise((resolve, reject) => {
    const worker = new Worker(source, { eval: true, workerData: { modulePath, file } });
    worker.once('message', resolve);
    worker.once('error', reject);
    worker.once('exit', (code) => code !== 0 && reject(new Error(`worker exited with ${code}`)));
  });
}

describe('the better-sqlite3 binary', () => {
  // Which file got loaded is read from /proc/self/maps, which only Linux has.
  it.skipIf(process.platform !== 'linux')('is the prebuilt Node-API file of the package, not a compile', async () => {
    const pkg = JSON.parse(readFileSync(join(packageDir, 'package.json'), 'utf8')) as {
      version: string;
      gypfile?: boolean;
    };
    expect(Number(pkg.version.split('.')[0])).toBeGreaterThanOrEqual(13);
    expect(pkg.gypfile).toBe(false);
    expect(existsSync(join(packageDir, 'build'))).toBe(false); // nothing was compiled at install
    const { default: Database } = await import('better-sqlite3');
    new Database(':memory:').close();
    const ours = loadedAddons().filter((file) => file.startsWith(packageDir));
    expect(ours).toHaveLength(1);
    expect(relative(packageDir, ours[0]!)).toMatch(/^prebuilds\/[a-z0-9]+-(x64|arm64)\.node$/);
  });

  it('loads in worker threads — several at once, beside the main thread — as the WAL checkpointer does', async () => {
    const file = join(scratch, 'workers.db');
    const [first, other, second] = await Promise.all([
      inWorker(packageDir, file),
      inWorker(packageDir, join(scratch, 'other.db')),
      inWorker(packageDir, file),
    ]);
    expect([other!.version, second!.version]).toEqual([first!.version, first!.version]);
    expect(other!.rows).toBe(1);
    // The two workers on one file race: each counts its own row, and the later one may count both.
    expect([first!.rows, second!.rows]).toContain(2);
    expect(Math.min(first!.rows, second!.rows)).toBeGreaterThanOrEqual(1);
    // A worker that ended took nothing with it: another one still loads the same addon.
    await expect(inWorker(packageDir, file)).resolves.toMatchObject({ rows: 3 });
  });

  it('loads from the layout a package ships: the installed files only, the .node unpacked from the asar', async () => {
    const config = readFileSync(join(PROJECT_ROOT, 'electron-builder.yml'), 'utf8');
    expect(config).toMatch(/^npmRebuild: false$/m);
    const list = /^asarUnpack:\n((?:\s+- .+\n)+)/m.exec(config)?.[1] ?? '';
    const unpack = [...list.matchAll(/- "?([^"\n]+?)"?$/gm)].map((match) => match[1]!);
    expect(unpack.length).toBeGreaterThan(0);
    const isUnpacked = picomatch(unpack, { dot: true });
    // What a packaged app holds under resources/app(.asar.unpacked)/node_modules: the package as
    // installed. Copy it (without its sources, which a package does not need) and load it there.
    const app = join(scratch, 'resources', 'app');
    const copy = join(app, 'node_modules', 'better-sqlite3');
    cpSync(packageDir, copy, {
      recursive: true,
      filter: (source) => !/[\\/](src|deps)$/.test(source) && !source.endsWith('binding.gyp'),
    });
    const prebuilt = readdirSync(join(copy, 'prebuilds'))
      .filter((name) => name.endsWith('.node'))
      .map((name) => join(copy, 'prebuilds', name));
    expect(prebuilt.length).toBeGreaterThan(0);
    for (const file of prebuilt) expect(isUnpacked(relative(app, file)), relative(app, file)).toBe(true);
    await expect(inWorker(copy, join(scratch, 'packaged.db'))).resolves.toMatchObject({ rows: 1 });
  });
});
