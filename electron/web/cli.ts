/**
 * `npm run web`: the app in browser mode. Serves the built renderer and the IPC contract on
 * 127.0.0.1 and prints the one link to open (it carries the per-start token).
 *
 *   --port <n>        port to listen on (default: any free port)
 *   --data-dir <dir>  data folder (default: the OS per-user app data folder)
 *   --gateway-port <n> the agent gateway's port for this run (default: Settings, 47813; 0: any free)
 *   --database <url>  postgres://… : tool calls (History, replay) in PostgreSQL, shared by every
 *                     core on it (default: MINIHARNESS_DATABASE_URL, else the SQLite file in the data folder)
 *   --workspace <dir> where local tools work (default: MINIHARNESS_WORKSPACE, else
 *                     ~/MiniHarness/workspace); never the data folder or inside it
 *   MINIHARNESS_TOKEN fixes the token (default: a random one per start)
 *   MINIHARNESS_SECRET_STORE=file skips the OS keyring (tests: never touch the real one)
 */
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { buildCore } from '../core/core.js';
import type { Core } from '../core/types.js';
import { FileSecretStore } from '../secrets/fileSecretStore.js';
import { openBrowserSecretStore } from '../secrets/keyringSecretStore.js';
import { ensurePrivateDir } from '../storage/privateFiles.js';
import type { DatabaseSelection } from '../storage/selectDatabase.js';
import { databaseAt } from '../storage/selectDatabase.js';
import { databaseUrlFrom } from '../storage/postgres/url.js';
import { newToken } from '../security/loopbackAccess.js';
import { openConfConfigStore } from './confConfigStore.js';
import { chooseWorkspaceDir, defaultDataDir } from '../core/dataDir.js';
import { gatewayPortOverride, stdioEntry } from '../core/gatewayOptions.js';
import { startWebHost } from './host.js';

const projectRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');

function fail(message: string): never {
  process.stderr.write(`MiniHarness: ${message}\n`);
  process.exit(2);
}

const { values } = parseArgs({
  options: {
    port: { type: 'string' },
    'data-dir': { type: 'string' },
    workspace: { type: 'string' },
    'gateway-port': { type: 'string' },
    database: { type: 'string' },
  },
  strict: true,
});
const port = values.port === undefined ? 0 : Number(values.port);
if (!Number.isInteger(port) || port < 0 || port > 65535)
  fail(`--port must be a number from 0 to 65535, not "${values.port}".`);
const dataDir = resolve(values['data-dir'] ?? defaultDataDir());
const workspaceDir = resolve(chooseWorkspaceDir(values.workspace));
const token = process.env.MINIHARNESS_TOKEN ?? newToken();
if (!/^[A-Za-z0-9._~-]{16,256}$/.test(token))
  fail('MINIHARNESS_TOKEN must be 16–256 characters of letters, digits, . _ ~ or -.');

let gatewayPort: number | undefined;
let database: DatabaseSelection;
try {
  gatewayPort = gatewayPortOverride(values['gateway-port'], process.env);
  // The message names the database without its credentials.
  database = databaseAt(values.database ?? databaseUrlFrom([], process.env));
} catch (error) {
  fail((error as Error).message);
}

const version = (JSON.parse(readFileSync(join(projectRoot, 'package.json'), 'utf8')) as { version: string }).version;
ensurePrivateDir(dataDir);
const secrets =
  process.env.MINIHARNESS_SECRET_STORE === 'file'
    ? new FileSecretStore(join(dataDir, 'secrets.json'), 'The OS keyring is turned off (MINIHARNESS_SECRET_STORE=file)')
    : await openBrowserSecretStore(dataDir);
let core: Core;
try {
  core = await buildCore({
    mode: 'browser',
    dataDir,
    workspaceDir,
    secrets,
    config: openConfConfigStore(dataDir),
    version,
    database,
    gateway: {
      ...(gatewayPort !== undefined ? { port: gatewayPort } : {}),
      stdio: stdioEntry({ packaged: false, execPath: process.execPath, projectRoot, node: process.execPath }),
    },
  });
} catch (error) {
  fail(error instanceof Error ? error.message : String(error));
}
await core.start();
const host = await startWebHost({ core, staticDir: join(projectRoot, 'out', 'renderer'), token, port });
process.stdout.write(`MiniHarness: http://127.0.0.1:${host.port}/#token=${token}\n`);

let stopping = false;
async function stop(): Promise<void> {
  if (stopping) return;
  stopping = true;
  await host.close();
  await core.close();
  process.exit(0);
}
process.on('SIGINT', () => void stop());
process.on('SIGTERM', () => void stop());
