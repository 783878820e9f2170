/**
 * The real builder of the Electron database module (scripts/buildElectronSqlite.mjs with the real
 * @electron/rebuild, prebuild-install and node-gyp), made to fail at the network — every download
 * goes through a proxy on a closed loopback port — over a project whose better-sqlite3 is a
 * linked package (as pnpm or `npm link` make it). A failed build must leave no file behind and
 * must never rebuild Node's copy in place, and npm's `nodedir` (Node's headers) must not be used.
 */
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, relative, sep } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { electronSqliteBinding } from '../../scripts/electronSqlite.mjs';
import { PROJECT_ROOT } from '../helpers/fixtures.js';

const require = createRequire(import.meta.url);
const realModule = dirname(require.resolve('better-sqlite3/package.json'));
const realPrebuildInstall = dirname(require.resolve('prebuild-install/package.json'));

let scratch: string;
let deadProxy: string;
beforeAll(async () => {
  scratch = mkdtempSync(join(tmpdir(), 'mh-build-sqlite-'));
  const closed = createServer();
  await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
  deadProxy = `http://127.0.0.1:${(closed.address() as { port: number }).port}`;
  await new Promise<void>((resolve) => closed.close(() => resolve()));
});
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

it('fails cleanly offline: exit 1, no module, no staging folder, and the linked Node build untouched', () => {
  // The package the project links to, with "Node's build" in it.
  const linked = join(scratch, 'linked-better-sqlite3');
  cpSync(realModule, linked, { recursive: true, filter: (path) => relative(realModule, path).split(sep)[0] !== 'build' });
  mkdirSync(join(linked, 'build', 'Release'), { recursive: true });
  writeFileSync(join(linked, 'build', 'Release', 'better_sqlite3.node'), 'node build');
  const root = join(scratch, 'project');
  mkdirSync(join(root, 'node_modules'), { recursive: true });
  symlinkSync(linked, join(root, 'node_modules', 'better-sqlite3'), 'dir');
  symlinkSync(realPrebuildInstall, join(root, 'node_modules', 'prebuild-install'), 'dir');
  const out = electronSqliteBinding({ root, sqliteVersion: '12.11.1', abi: '150', platform: process.platform, arch: process.arch });

  // npm_config_nodedir as Debian's npm sets it: Node's headers must not be used for Electron.
  const env: Record<string, string | undefined> = { ...process.env, HTTPS_PROXY: deadProxy, https_proxy: deadProxy, HTTP_PROXY: deadProxy, http_proxy: deadProxy, npm_config_nodedir: '/usr' };
  delete env.NO_PROXY;
  delete env.no_proxy;
  // A compile that started anyway would take minutes: the timeout turns that into a failure here.
  const run = spawnSync(process.execPath, [join(PROJECT_ROOT, 'scripts', 'buildElectronSqlite.mjs'), '--root', root, '--electron-version', '45.5.0', '--out', out], {
    cwd: root,
    env,
    encoding: 'utf8',
    timeout: 25_000,
  });

  expect(run.status).toBe(1);
  expect(run.stderr).toContain('MiniHarness: could not make the database module for Electron');
  expect(existsSync(out)).toBe(false);
  const cache = dirname(dirname(out));
  expect(existsSync(cache) ? readdirSync(cache) : []).toEqual([]);
  expect(readFileSync(join(linked, 'build', 'Release', 'better_sqlite3.node'), 'utf8')).toBe('node build');
  expect(readdirSync(join(linked, 'build'))).toEqual(['Release']);
});
