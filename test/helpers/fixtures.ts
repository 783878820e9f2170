/** Helpers to start the fixture servers and read what they observed. */
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { StdioServerConfig } from '../../shared/serverConfig.js';
import { StdioServerConfigSchema } from '../../shared/serverConfig.js';

const here = dirname(fileURLToPath(import.meta.url));
export const PROJECT_ROOT = resolve(here, '..', '..');
export const STDIO_FIXTURE = join(PROJECT_ROOT, 'test', 'doubles', 'servers', 'stdio-server.ts');
/** The fixture bundled to plain JS by the test run's global setup (see buildFixtures.ts). */
export const BUILT_STDIO_FIXTURE = join(PROJECT_ROOT, '.cache', 'fixtures', 'stdio-server.mjs');
/** A server that writes its credentials into what it describes (run with `node --import tsx`; see the file). */
export const LEAKY_SERVER = join(PROJECT_ROOT, 'test', 'doubles', 'servers', 'leaky-server.ts');
/** Its 2026-07-28 counterpart: a question asked during a call quotes a credential (see the file). */
export const LEAKY_MODERN_SERVER = join(PROJECT_ROOT, 'test', 'doubles', 'servers', 'leaky-modern-server.ts');

/** A scratch folder removed by `cleanup()`. */
export function scratchDir(prefix = 'mh-test-'): { dir: string; cleanup(): void } {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/** A stdio server config that runs the (built) fixture server, with the given fixture env. */
export function stdioFixtureConfig(
  id: string,
  fixtureEnv: Record<string, string> = {},
  overrides: Partial<StdioServerConfig> = {},
): StdioServerConfig {
  const config = StdioServerConfigSchema.parse({
    id,
    name: `Fixture ${id}`,
    transport: 'stdio',
    command: process.execPath,
    args: [BUILT_STDIO_FIXTURE],
    cwd: PROJECT_ROOT,
    env: fixtureEnv,
    timeoutMs: 10_000,
    ...overrides,
  });
  return { ...config, sandbox: config.sandbox ?? sandboxWritingTo(config.env) };
}

function isFolder(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

/**
 * The sandbox a test double runs in (every stdio server is sandboxed by default, issue 29): on,
 * its profile's defaults, plus the folders of the files the test hands it in its environment
 * (its event log, its counter) writable, as a person lists the folders a server writes.
 */
export function sandboxWritingTo(env: Record<string, unknown>): NonNullable<StdioServerConfig['sandbox']> {
  const folders = Object.values(env)
    .filter((value): value is string => typeof value === 'string' && isAbsolute(value) && !value.includes('\0'))
    .map((path) => (isFolder(path) ? path : dirname(path)))
    .filter((folder) => folder !== '/' && folder !== PROJECT_ROOT);
  return { enabled: true, read: [], denyRead: [], write: [...new Set(folders)], hosts: [] };
}

export interface FixtureEvent {
  event: string;
  /** The pid as the server sees it (in a sandbox, its PID namespace's). */
  pid: number;
  /** Which server process it was (a sandboxed server's pid is not unique). */
  instance: string;
  at: number;
  tool?: string;
}

export function readEvents(file: string): FixtureEvent[] {
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as FixtureEvent);
}

export function countEvents(file: string, event: string): number {
  return readEvents(file).filter((e) => e.event === event).length;
}

export function readLines(file: string): string[] {
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8').split('\n').filter(Boolean);
}

/** Polls until `check` is true or the time is up (for events another process writes). */
export async function waitFor(check: () => boolean | Promise<boolean>, timeoutMs = 5_000, stepMs = 20): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, stepMs));
  }
}
