/** Where each host keeps its per-user data and its workspace: the same folders in both hosts. */
import { homedir } from 'node:os';
import { join } from 'node:path';
import { PRODUCT_NAME } from '../../shared/product.js';

/** The per-user app data folder, the same one Electron's `app.getPath('userData')` gives. */
export function defaultDataDir(
  env: NodeJS.ProcessEnv = process.env,
  platform: NodeJS.Platform = process.platform,
): string {
  if (platform === 'win32') return join(env.APPDATA ?? join(homedir(), 'AppData', 'Roaming'), PRODUCT_NAME);
  if (platform === 'darwin') return join(homedir(), 'Library', 'Application Support', PRODUCT_NAME);
  return join(env.XDG_CONFIG_HOME || join(homedir(), '.config'), PRODUCT_NAME);
}

/**
 * The per-user workspace, where local tools read, write and run commands: a folder of its own
 * in the home folder, never inside the data folder (which holds the database and secrets).
 */
export function defaultWorkspaceDir(): string {
  return join(homedir(), 'MiniHarness', 'workspace');
}

/** The workspace a host uses: its `--workspace` option, else MINIHARNESS_WORKSPACE, else the default. */
export function chooseWorkspaceDir(option: string | undefined, env: NodeJS.ProcessEnv = process.env): string {
  return option || env.MINIHARNESS_WORKSPACE || defaultWorkspaceDir();
}
