// Makes the Electron build of better-sqlite3 that the Electron main process loads through
// `nativeBinding` (see scripts/electronSqlite.mjs), without touching node_modules/better-sqlite3
// (Node's build, which the tests and browser mode use). Run by `npm start` (scripts/prepareLaunch.mjs):
//
//   node scripts/buildElectronSqlite.mjs --root <project> --electron-version <v> --arch <arch> --out <file>
//
// It copies the module's sources to a staging folder beside <file> (inside the project's
// node_modules, so @electron/rebuild finds prebuild-install by walking up) and runs @electron/rebuild there —
// the tool electron-builder uses when packaging: it downloads the module's prebuilt binary for
// that Electron (prebuild-install) when one is published, else compiles it against Electron's
// headers (node-gyp, a C++ toolchain). The binary is then moved to <file> in one rename, so a
// failed or interrupted run leaves no half-written module. Exit code 0 means <file> exists.
import { copyFileSync, cpSync, existsSync, mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, relative, sep } from 'node:path';
import { parseArgs } from 'node:util';
import { SQLITE_BINARY_NAME } from './electronSqlite.mjs';

const { values } = parseArgs({
  options: { root: { type: 'string' }, 'electron-version': { type: 'string' }, arch: { type: 'string' }, out: { type: 'string' } },
});
const { root, arch = process.arch, out } = values;
const electronVersion = values['electron-version'];
if (!root || !electronVersion || !out) {
  console.error('usage: buildElectronSqlite.mjs --root <project> --electron-version <version> [--arch <arch>] --out <file>');
  process.exit(2);
}

const source = join(root, 'node_modules', 'better-sqlite3');
const staging = `${dirname(out)}.building-${process.pid}`;
const stagedModule = join(staging, 'node_modules', 'better-sqlite3');

try {
  // Sources only: Node's build/ stays where it is (and must not be mistaken for Electron's).
  cpSync(source, stagedModule, { recursive: true, filter: (path) => relative(source, path).split(sep)[0] !== 'build' });
  writeFileSync(join(staging, 'package.json'), JSON.stringify({ name: 'miniharness-electron-sqlite', private: true, dependencies: { 'better-sqlite3': '*' } }));

  const { rebuild } = await import('@electron/rebuild');
  const run = rebuild({ buildPath: staging, electronVersion, arch, onlyModules: ['better-sqlite3'], force: true, mode: 'sequential' });
  run.lifecycle.on('module-found', (name) => console.log(`MiniHarness: ${name} for Electron ${electronVersion} (${arch}): a prebuilt binary if one is published, else a build from source…`));
  run.lifecycle.on('module-done', (name) => console.log(`MiniHarness: ${name} for Electron is ready.`));
  await run;

  const built = join(stagedModule, 'build', 'Release', SQLITE_BINARY_NAME);
  if (!existsSync(built)) throw new Error(`@electron/rebuild finished but made no ${join('build', 'Release', SQLITE_BINARY_NAME)}`);
  mkdirSync(dirname(out), { recursive: true });
  const temp = join(dirname(out), `.${basename(out)}.${process.pid}`);
  copyFileSync(built, temp);
  renameSync(temp, out);
} catch (error) {
  console.error(`MiniHarness: could not make the database module for Electron: ${error instanceof Error ? error.message : String(error)}`);
  process.exitCode = 1;
} finally {
  rmSync(staging, { recursive: true, force: true });
}
