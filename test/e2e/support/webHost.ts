/**
 * Starts the real browser-mode host (`electron/web/cli.ts`, what `npm run web` runs) as a child
 * process over a data folder, and reads the link it prints. Each test gets a host of its own.
 */
import type { ChildProcess } from 'node:child_process';
import { execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');

export interface WebHostProcess {
  /** The printed link, with `#token=…`. */
  url: string;
  origin: string;
  token: string;
  dataDir: string;
  workspaceDir: string;
  /** Everything the host printed (for failure messages). */
  output(): string;
  /** True while the host process has not exited. */
  alive(): boolean;
  /** The host's process id (benchmarks read its memory). */
  pid: number | undefined;
  stop(): Promise<void>;
}

/** A token the host accepts (16–256 of [A-Za-z0-9._~-]). */
export function newToken(): string {
  return randomBytes(24).toString('base64url');
}

let built = false;
/**
 * Builds the app once per worker so the host serves the renderer of this checkout, not a stale
 * `out/`. MINIHARNESS_E2E_NO_BUILD=1 skips it (when a build step already ran).
 */
export function buildAppOnce(): void {
  if (built || process.env.MINIHARNESS_E2E_NO_BUILD === '1') return;
  execFileSync(process.execPath, [join(ROOT, 'node_modules', 'electron-vite', 'bin', 'electron-vite.js'), 'build'], {
    cwd: ROOT,
    stdio: 'pipe',
  });
  built = true;
}

/** `workspaceDir` defaults to a `workspace` folder beside the data folder, so no test writes to the real home. */
export async function startWebHost(options: {
  dataDir: string;
  workspaceDir?: string;
  token?: string;
  timeoutMs?: number;
  port?: number;
  /** More command-line arguments (`--database <url>`, …). */
  args?: string[];
}): Promise<WebHostProcess> {
  const token = options.token ?? newToken();
  const workspaceDir = options.workspaceDir ?? join(dirname(resolve(options.dataDir)), 'workspace');
  const cli = join(ROOT, 'electron', 'web', 'cli.ts');
  const child: ChildProcess = spawn(
    process.execPath,
    [
      '--import',
      'tsx',
      cli,
      '--port',
      String(options.port ?? 0),
      '--data-dir',
      options.dataDir,
      '--workspace',
      workspaceDir,
      ...(options.args ?? []),
    ],
    {
      cwd: ROOT,
      env: {
        ...process.env,
        MINIHARNESS_TOKEN: token,
        // Keep tests out of the developer's real OS keyring: secrets go to the file in the scratch folder.
        MINIHARNESS_SECRET_STORE: 'file',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));

  const exited = new Promise<void>((resolveExit) => child.once('exit', () => resolveExit()));
  const url = await new Promise<string>((resolveUrl, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`the host printed no link in time:\n${output}`)),
      // A cap for a host that hangs, not a margin: on a loaded machine tsx alone took over 30 s to start it.
      options.timeoutMs ?? 180_000,
    );
    const check = () => {
      const match = /MiniHarness: (http:\/\/127\.0\.0\.1:\d+\/#token=\S+)/.exec(output);
      if (match?.[1]) {
        clearTimeout(timer);
        resolveUrl(match[1]);
      }
    };
    child.stdout?.on('data', check);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`the host exited (${code}) before printing its link:\n${output}`));
    });
  });

  return {
    url,
    origin: new URL(url).origin,
    token,
    dataDir: options.dataDir,
    workspaceDir,
    output: () => output,
    alive: () => child.exitCode === null && child.signalCode === null,
    pid: child.pid,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      const killer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(killer);
    },
  };
}

/** Every file under a folder, as paths relative to it. */
export function filesUnder(dir: string): string[] {
  if (!existsSync(dir)) return [];
  const out: string[] = [];
  const walk = (folder: string) => {
    for (const name of readdirSync(folder)) {
      const path = join(folder, name);
      const stat = statSync(path, { throwIfNoEntry: false });
      if (stat === undefined) continue; // gone since listed (a temporary file of a replacing write)
      if (stat.isDirectory()) walk(path);
      else out.push(relative(dir, path));
    }
  };
  walk(dir);
  return out;
}

/** The files under `dir` whose bytes contain `needle` (binary files such as SQLite included). */
export function filesContaining(dir: string, needle: string): string[] {
  const bytes = Buffer.from(needle, 'utf8');
  return filesUnder(dir).filter((file) => {
    try {
      return readFileSync(join(dir, file)).includes(bytes);
    } catch (error) {
      // A file written by replacement (its temporary name) may be gone between listing and reading.
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
      throw error;
    }
  });
}
