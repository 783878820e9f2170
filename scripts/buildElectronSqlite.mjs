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
import { copyFileSync, cpSync, existsSync, lstatSync, mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
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

// npm passes its config to scripts as npm_config_* variables, and node-gyp obeys them: a `nodedir`
// (Debian's npm sets one) or a `target` / `runtime` / `disturl` meant for Node would build the
// module against Node's headers — the wrong ABI, under the Electron build's name.
for (const key of Object.keys(process.env)) {
  if (/^npm_config_(nodedir|target|runtime|disturl|dist_url)$/i.test(key)) delete process.env[key];
}

const source = join(root, 'node_modules', 'better-sqlite3');
const staging = `${dirname(out)}.building-${process.pid}`;
const stagedModule = join(staging, 'node_modules', 'better-sqlite3');

try {
  // Sources only: Node's build/ stays where it is (and must not be mistaken for Electron's).
  // Dereferenced: a linked package (pnpm, npm link) copied as a link would be rebuilt in place,
  // wiping Node's build of it.
  cpSync(source, stagedModule, { recursive: true, dereference: true, filter: (path) => relative(source, path).split(sep)[0] !== 'build' });
  if (lstatSync(stagedModule).isSymbolicLink()) throw new Error(`the staged copy of ${source} is a link; refusing to rebuild it in place`);
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
