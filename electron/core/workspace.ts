/**
 * Where the local tools work. The workspace and the data folder must not overlap: a workspace
 * inside the data folder lets any tool read the secret store and delete the database (`rm -rf ..`),
 * and a data folder inside the workspace is the same thing seen from the other side.
 */
import { mkdirSync, realpathSync } from 'node:fs';
import { basename, dirname, isAbsolute, relative, resolve, sep } from 'node:path';
import { AppError } from './errors.js';

/** The real path of `path`, resolving the part that exists (the rest may not be created yet). */
function realish(path: string): string {
  const abs = resolve(path);
  try {
    return realpathSync(abs);
  } catch {
    const parent = dirname(abs);
    return parent === abs ? abs : resolve(realish(parent), basename(abs));
  }
}

function contains(outer: string, inner: string): boolean {
  const fold =
    process.platform === 'darwin' || process.platform === 'win32' ? (p: string) => p.toLowerCase() : (p: string) => p;
  const rel = relative(fold(outer), fold(inner));
  return rel === '' || (rel !== '..' && !rel.startsWith(`..${sep}`) && !isAbsolute(rel));
}

/**
 * How a folder overlaps the data folder (compared by real path), in words — or undefined when it
 * does not. The same check guards the workspace and every folder added in Settings.
 */
export function overlapWithData(folder: string, dataDir: string): string | undefined {
  const dir = realish(folder);
  const data = realish(dataDir);
  return dir === data
    ? 'is the data folder'
    : contains(data, dir)
      ? 'is inside the data folder'
      : contains(dir, data)
        ? 'contains the data folder'
        : undefined;
}

/** Refuses a workspace that is the data folder, inside it or around it; creates it; returns its real path. */
export function prepareWorkspace(workspaceDir: string, dataDir: string): string {
  const workspace = realish(workspaceDir);
  const problem = overlapWithData(workspaceDir, dataDir);
  if (problem) {
    throw new AppError(
      'workspace_overlaps_data',
      `The workspace "${workspaceDir}" ${problem} ("${dataDir}"). Local tools could then read the app's secrets and database. Choose a workspace outside it (--workspace or MINIHARNESS_WORKSPACE).`,
    );
  }
  mkdirSync(workspace, { recursive: true });
  return realpathSync(workspace);
}
