/**
 * The MCP conformance suite (`@modelcontextprotocol/conformance`, pinned 0.2.0-alpha.12), driven
 * through its own command line only: which scenarios a spec revision names (`list --requirements`),
 * and one scenario run at that revision's wire (`client|server --scenario … --spec-version <rev>
 * --force`, exactly what `--requirements <rev>` does for each scenario it runs), its verdict read
 * from the `checks.json` the suite writes into a scratch folder of its own.
 *
 * A scenario passes when no check is a FAILURE or a WARNING and the suite exited 0; a run that
 * wrote no checks (a crash, a timeout of the suite itself) fails with the suite's output.
 */
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const SUITE_CLI = join(ROOT, 'node_modules', '@modelcontextprotocol', 'conformance', 'dist', 'index.js');
const COMPILE_CACHE = join(ROOT, '.cache', 'conformance', 'node-compile-cache');
/** The installed suite's version (package.json pins it). */
export const SUITE_VERSION = (
  JSON.parse(readFileSync(join(dirname(SUITE_CLI), '..', 'package.json'), 'utf8')) as { version: string }
).version;

/** The revisions this project is measured against, newest first. */
export const REVISIONS = ['2026-07-28', '2025-11-25'] as const;
export type Revision = (typeof REVISIONS)[number];
export type Leg = 'client' | 'server';

/** One scenario a revision names: scored, or run and reported apart (extension, added-after-release, pending). */
export interface NamedScenario {
  scenario: string;
  /** undefined: required (scored); otherwise why the suite does not score it. */
  notScored?: string;
}

export interface Outcome {
  scenario: string;
  revision: Revision;
  leg: Leg;
  notScored?: string;
  passed: number;
  failed: number;
  warnings: number;
  /** Checks the suite skipped (a scenario whose every check is skipped passes, as the suite says; the line shows it). */
  skipped: number;
  /** Checks the suite counts: successes, failures and warnings (INFO and SKIPPED lines are not checks). */
  total: number;
  ok: boolean;
  seconds: number;
  /** The failing and warning checks, one line each (id: message). */
  problems: string[];
  /** The suite's own output (shown with --verbose, or when no checks were written). */
  output: string;
}

interface Check {
  id: string;
  name?: string;
  description?: string;
  status: string;
  errorMessage?: string;
}

/** Runs the suite's CLI; its output, uncoloured. */
export function runSuite(args: string[]): Promise<{ exitCode: number; output: string }> {
  return new Promise((resolve) => {
    // The compile cache spares each of the ~150 suite (and client) processes parsing its bundle again.
    const child = spawn(process.execPath, ['--no-deprecation', SUITE_CLI, ...args], {
      cwd: ROOT,
      env: { NODE_COMPILE_CACHE: COMPILE_CACHE, ...process.env, FORCE_COLOR: '0', NO_COLOR: '1' },
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.on('close', (code) => resolve({ exitCode: code ?? 1, output: stripColour(output) }));
    child.on('error', (error) => resolve({ exitCode: 1, output: `${output}\n${error.message}` }));
  });
}

function stripColour(text: string): string {
  // eslint-disable-next-line no-control-regex -- the suite colours its output whatever NO_COLOR says
  return text.replace(/\x1b\[[0-9;]*m/g, '');
}

/**
 * What `list --requirements <revision>` names for a leg: the required scenarios, then those it
 * runs and reports without scoring, each with the suite's reason.
 */
export async function requiredScenarios(revision: Revision, leg: Leg): Promise<NamedScenario[]> {
  const { exitCode, output } = await runSuite(['list', '--requirements', revision]);
  if (exitCode !== 0) throw new Error(`conformance list --requirements ${revision} failed:\n${output}`);
  const named: NamedScenario[] = [];
  let section: 'server' | 'client' | 'notScored' | undefined;
  let reason = '';
  for (const line of output.split('\n')) {
    if (/^Server scenarios/.test(line)) section = 'server';
    else if (/^Client scenarios/.test(line)) section = 'client';
    else if (/^Run and reported, but never scored/.test(line)) section = 'notScored';
    else if (section === 'notScored' && /^ {2}(\S[^(]*) \(\d+\):$/.test(line))
      reason = (/^ {2}(\S[^(]*) \(/.exec(line)?.[1] ?? '').trim();
    else if (section === leg && /^ {2}- (\S+)$/.test(line))
      named.push({ scenario: /^ {2}- (\S+)$/.exec(line)?.[1] as string });
    else if (section === 'notScored') {
      const match = /^ {4}- (\S+) \[(client|server)\]$/.exec(line);
      if (match?.[2] === leg) named.push({ scenario: match[1] as string, notScored: reason });
    }
  }
  if (!named.some((n) => n.notScored === undefined))
    throw new Error(
      `conformance list --requirements ${revision} named no ${leg} scenario; has its output changed?\n${output}`,
    );
  return named;
}

/** Why the extensions no requirement set names are run (for the record, never scored). */
export const UNLISTED_EXTENSION = 'extension, in no set';

/** The leg's extension scenarios (`list --client|--server`, tagged `[extension]`). */
export async function extensionScenarios(leg: Leg): Promise<string[]> {
  const { exitCode, output } = await runSuite(['list', `--${leg}`]);
  if (exitCode !== 0) throw new Error(`conformance list --${leg} failed:\n${output}`);
  return [...output.matchAll(/^ {2}- (\S+) \[extension\]$/gm)].map((m) => m[1] as string);
}

export interface ScenarioTarget {
  leg: Leg;
  /** client: the command the suite starts (it appends the server URL); server: the URL it tests. */
  target: string;
  /** The suite's limit on one client run or one server scenario, in ms. */
  timeoutMs: number;
  /** Where to keep each scenario's results (checks.json and the client's output); default: a scratch folder, removed. */
  keepDir?: string;
}

/** Runs one scenario at one revision's wire and reads its checks. */
export async function runScenario(named: NamedScenario, revision: Revision, how: ScenarioTarget): Promise<Outcome> {
  const started = performance.now();
  const outDir = how.keepDir
    ? join(how.keepDir, how.leg, revision)
    : await mkdtemp(join(tmpdir(), 'miniharness-conformance-'));
  const args = [
    how.leg,
    '--scenario',
    named.scenario,
    '--spec-version',
    revision,
    '--force',
    '--timeout',
    String(how.timeoutMs),
    '--output-dir',
    outDir,
  ];
  args.push(...(how.leg === 'client' ? ['--command', how.target] : ['--url', how.target]));
  try {
    const { exitCode, output } = await runSuite(args);
    const file = await findChecksFor(outDir, how.leg === 'server' ? `server-${named.scenario}` : named.scenario);
    const checks = file ? (JSON.parse(await readFile(file, 'utf8')) as Check[]) : [];
    const count = (status: string): number => checks.filter((c) => c.status === status).length;
    const passed = count('SUCCESS');
    const failed = count('FAILURE') + (file ? 0 : 1);
    const warnings = count('WARNING');
    const skipped = count('SKIPPED');
    const problems = checks
      .filter((c) => c.status === 'FAILURE' || c.status === 'WARNING')
      .map(
        (c) =>
          `${c.status === 'WARNING' ? 'warning ' : ''}${c.id}: ${oneLine(c.errorMessage ?? c.description ?? c.name ?? '')}`,
      );
    if (!file) problems.push(`no checks were written (suite exit ${exitCode})`);
    const clientExit = /Client exited with code (\d+)/.exec(output);
    if (clientExit) {
      const lastFailure = [...output.matchAll(/^\[miniharness\] (?:failed|crashed).*$/gm)].at(-1)?.[0];
      problems.push(`client exited with code ${clientExit[1]}${lastFailure ? `: ${oneLine(lastFailure)}` : ''}`);
    }
    return {
      scenario: named.scenario,
      revision,
      leg: how.leg,
      ...(named.notScored ? { notScored: named.notScored } : {}),
      passed,
      failed,
      warnings,
      skipped,
      total: passed + failed + warnings,
      ok: exitCode === 0 && failed === 0 && warnings === 0,
      seconds: (performance.now() - started) / 1000,
      problems,
      output,
    };
  } finally {
    if (!how.keepDir) await rm(outDir, { recursive: true, force: true });
  }
}

/**
 * The suite names each run's folder `<name>-<timestamp>` (client: the scenario, which may hold a
 * `/`; server: `server-<scenario>`), the timestamp being `toISOString()` with `:` and `.` made
 * `-`: the newest one of exactly this name. The name is matched whole — `iss-supported` must not
 * take `iss-supported-missing-…`, a scenario whose name only begins with it.
 */
export async function findChecksFor(outDir: string, scenario: string): Promise<string | undefined> {
  const parent = join(outDir, dirname(scenario));
  const base = scenario.split('/').at(-1) as string;
  const escaped = base.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const ours = new RegExp(`^${escaped}-(\\d{4}-\\d\\d-\\d\\dT\\d\\d-\\d\\d-\\d\\d-\\d{3}Z)$`);
  let runs: Array<{ name: string; at: string }>;
  try {
    runs = (await readdir(parent)).flatMap((name) => {
      const at = ours.exec(name)?.[1];
      return at === undefined ? [] : [{ name, at }];
    });
  } catch {
    return undefined;
  }
  // The timestamps are fixed-width UTC: their order as text is their order in time.
  const newest = runs.sort((a, b) => (a.at < b.at ? -1 : a.at > b.at ? 1 : 0)).at(-1);
  const file = newest && join(parent, newest.name, 'checks.json');
  return file && existsSync(file) ? file : undefined;
}

function oneLine(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > 200 ? `${flat.slice(0, 197)}...` : flat;
}

/** Runs `work` over `items`, `size` at a time, results in the items' order. */
export async function pool<T, R>(items: readonly T[], size: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array<R>(items.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const index = next++;
      results[index] = await work(items[index] as T);
    }
  };
  await Promise.all(Array.from({ length: Math.min(size, items.length) }, worker));
  return results;
}
