// Puts files back as they were. `npm run package` needs it: electron-builder rebuilds native
// modules for Electron in the project's own node_modules (`npmRebuild`, electron-builder.yml:
// @electron/rebuild with the project as its build path), which would leave the tests and browser
// mode with a better-sqlite3 they cannot load, and an @electron/rebuild marker saying the module is
// already built for Electron — so the next package would ship Node's build. scripts/package.mjs
// snapshots both before and restores them after, whatever happened.
import { existsSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** Node's better-sqlite3 binary and @electron/rebuild's "built for" marker beside it. */
export function nodeBuildFiles(root) {
  const release = join(root, 'node_modules', 'better-sqlite3', 'build', 'Release');
  return [join(release, 'better_sqlite3.node'), join(release, '.forge-meta')];
}

/**
 * Reads the files now (a missing one is remembered as missing) and returns `restore()`, which
 * writes each back — or removes it if it did not exist — through a temporary file and a rename.
 * @param {string[]} files
 * @returns {{ restore(): void }}
 */
export function snapshot(files) {
  const saved = files.map((file) => ({ file, content: existsSync(file) ? readFileSync(file) : undefined }));
  return {
    restore() {
      for (const { file, content } of saved) {
        if (content === undefined) {
          rmSync(file, { force: true });
          continue;
        }
        const temp = `${file}.restore-${process.pid}`;
        writeFileSync(temp, content, { mode: 0o755 });
        renameSync(temp, file);
      }
    },
  };
}
