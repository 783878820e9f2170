/**
 * `npm run test:conformance`: the MCP conformance suite (`@modelcontextprotocol/conformance`,
 * pinned 0.2.0-alpha.12, the release that tests 2026-07-28; Node 22+), both legs, every scenario
 * that `--requirements 2026-07-28` and `--requirements 2025-11-25` name, each run at its
 * revision's wire:
 *
 * - client leg: the product's own client (scripts/conformance/client.ts → `MCPClient` and its
 *   OAuth session), bundled once with esbuild so each scenario's process starts fast;
 * - server leg: first against our conformance double directly (test/doubles/servers/conformance-http.ts,
 *   a v2 server offering what the suite's server scenarios call; its expected failures in
 *   expected-failures-direct.json), then against the product's agent gateway with that double behind it
 *   and an agent that keeps own names, its token added by a test-only forwarder (gatewayUnderTest.ts,
 *   tokenForwarder.ts). The gateway is held to the double: a scenario that passes directly and fails
 *   through the gateway fails the run unless expected-failures.json lists it with why it is withheld.
 *
 * Extensions no requirement set names run too, for the record, with the newest revision. Scenarios
 * run a few at a time, one line each; then totals per leg and revision (scenarios and checks),
 * required scenarios apart from those the suite runs without scoring (extensions, added after
 * release, pending). Exit code 1 when a scenario fails that expected-failures.json
 * does not list for its leg and revision, when a listed one passes (stale), or when the list
 * names a scenario the revision does not (expectations.ts).
 *
 * Options: `--leg client|server`, `--revision <rev>`, `--only <scenario>` (each repeatable;
 * default: everything), `--concurrency <n>` (default: the CPU count, at least 4: a scenario's processes mostly wait on each other), `--verbose`
 * (every scenario's failing checks and the suite's output), `--update-expected` (rewrite
 * expected-failures.json from this run: reasons of what still fails are kept, new failures get
 * "TODO reason", what passes is dropped; exits 1 while a TODO is left).
 * `CONFORMANCE_RESULTS=<dir>` keeps the suite's results (checks.json, the client's output).
 */
import { mkdir } from 'node:fs/promises';
import { availableParallelism } from 'node:os';
import { join, relative } from 'node:path';
import { build } from 'esbuild';
import type { Verdict } from './expectations.js';
import {
  EXPECTED_DIRECT_FILE,
  EXPECTED_FILE,
  TODO_REASON,
  loadExpected,
  unknownEntries,
  updatedExpected,
  verdictOf,
  writeExpected,
} from './expectations.js';
import { startGatewayUnderTest } from './gatewayUnderTest.js';
import { startConformanceHttp } from '../../test/doubles/servers/conformance-http.js';
import type { Leg, NamedScenario, Outcome, Revision } from './suite.js';
import {
  REVISIONS,
  ROOT,
  SUITE_VERSION,
  UNLISTED_EXTENSION,
  extensionScenarios,
  pool,
  requiredScenarios,
  runScenario,
} from './suite.js';

const BUNDLE = join(ROOT, '.cache', 'conformance', 'client.mjs');
/** The suite's limit on one client run, in ms (its default, 30 s, is tight on a loaded 2-core machine). */
const CLIENT_TIMEOUT_MS = 60_000;
/** The suite's limit on one server scenario, in ms (its default). */
const SERVER_TIMEOUT_MS = 30_000;
/** Server scenarios that add tools or prompts to the server under test while they run (`test_trigger_tool_change`, `test_trigger_prompt_change`). */
const CHANGES_LISTS: ReadonlySet<string> = new Set(['server-stateless']);

interface Judged extends Outcome {
  verdict: Verdict;
  /** Server leg: against the conformance double directly, or through the gateway with the double behind. */
  target?: 'direct' | 'gateway';
}

function argValues(name: string): string[] {
  const values: string[] = [];
  process.argv.forEach((arg, i) => {
    if (arg === name && process.argv[i + 1]) values.push(process.argv[i + 1] as string);
  });
  return values;
}

function printLine(o: Judged): void {
  const checks = `${o.passed}/${o.total} checks${o.warnings ? `, ${o.warnings} warnings` : ''}${o.skipped ? `, ${o.skipped} skipped` : ''}`;
  const scored = o.notScored ? `(${o.notScored})` : '';
  console.log(
    `${o.verdict.padEnd(16)} ${(o.target ?? o.leg).padEnd(7)} ${o.revision} ${o.scenario.padEnd(46)} ${checks.padEnd(26)} ${scored.padEnd(23)} ${o.seconds.toFixed(1)} s`,
  );
}

function totalsLine(outcomes: readonly Judged[]): string {
  const passed = outcomes.filter((o) => o.ok).length;
  const checksPassed = outcomes.reduce((n, o) => n + o.passed, 0);
  const checksTotal = outcomes.reduce((n, o) => n + o.total, 0);
  const expected = outcomes.filter((o) => o.verdict === 'expected failure').length;
  return `${passed}/${outcomes.length} scenarios passed (${expected} expected failures), ${checksPassed}/${checksTotal} checks`;
}

async function runLeg(
  leg: Leg,
  revisions: readonly Revision[],
  only: readonly string[],
  target: string,
  concurrency: number,
  keepDir: string | undefined,
  judge: (o: Outcome) => Judged,
): Promise<{ outcomes: Judged[]; named: Map<Revision, string[]> }> {
  const named = new Map<Revision, string[]>();
  const work: Array<{ named: NamedScenario; revision: Revision }> = [];
  const sets = new Map<Revision, NamedScenario[]>();
  for (const revision of REVISIONS) sets.set(revision, await requiredScenarios(revision, leg));
  // Extensions no requirement set names run too, for the record, with the newest revision.
  const inSets = new Set([...sets.values()].flat().map((n) => n.scenario));
  const unlisted = (await extensionScenarios(leg))
    .filter((s) => !inSets.has(s))
    .map((scenario): NamedScenario => ({ scenario, notScored: UNLISTED_EXTENSION }));
  sets.get(REVISIONS[0])?.push(...unlisted);
  for (const revision of revisions) {
    const all = sets.get(revision) ?? [];
    named.set(
      revision,
      all.map((n) => n.scenario),
    );
    for (const n of all) if (!only.length || only.includes(n.scenario)) work.push({ named: n, revision });
  }
  const timeoutMs = leg === 'client' ? CLIENT_TIMEOUT_MS : SERVER_TIMEOUT_MS;
  const run = async ({ named: n, revision }: (typeof work)[number]): Promise<Judged> => {
    const judged = judge(await runScenario(n, revision, { leg, target, timeoutMs, ...(keepDir ? { keepDir } : {}) }));
    printLine(judged);
    return judged;
  };
  // A server-leg scenario that changes the server's lists runs after the others, alone: beside one that lists
  // them, the lists changed between that one's probes (tools-list's deterministic-order check) and it failed.
  const alone = (item: (typeof work)[number]): boolean => leg === 'server' && CHANGES_LISTS.has(item.named.scenario);
  const outcomes = await pool(
    work.filter((item) => !alone(item)),
    concurrency,
    run,
  );
  for (const item of work.filter(alone)) outcomes.push(await run(item));
  return { outcomes, named };
}

async function main(): Promise<number> {
  const started = performance.now();
  const verbose = process.argv.includes('--verbose');
  const update = process.argv.includes('--update-expected');
  const concurrency = Number(argValues('--concurrency')[0] ?? Math.max(4, availableParallelism()));
  const only = argValues('--only');
  const legs = (argValues('--leg').length ? argValues('--leg') : ['client', 'server']) as Leg[];
  const revisions = (argValues('--revision').length ? argValues('--revision') : [...REVISIONS]) as Revision[];
  for (const leg of legs)
    if (leg !== 'client' && leg !== 'server') throw new Error(`--leg must be client or server, not ${leg}`);
  for (const revision of revisions)
    if (!REVISIONS.includes(revision))
      throw new Error(`--revision must be one of ${REVISIONS.join(', ')}, not ${revision}`);
  const expected = loadExpected();
  const expectedDirect = loadExpected(EXPECTED_DIRECT_FILE);
  const judge = (o: Outcome): Judged => ({
    ...o,
    verdict: verdictOf(o, expected),
    ...(o.leg === 'server' ? { target: 'gateway' as const } : {}),
  });
  const judgeDirect = (o: Outcome): Judged => ({ ...o, verdict: verdictOf(o, expectedDirect), target: 'direct' });
  const keepDir = process.env.CONFORMANCE_RESULTS;
  if (keepDir) await mkdir(keepDir, { recursive: true });

  const outcomes: Judged[] = [];
  /** The server leg against the conformance double directly (the baseline the gateway is held to). */
  const direct: Judged[] = [];
  const gone: string[] = [];
  const collect = (leg: Leg, result: { outcomes: Judged[]; named: Map<Revision, string[]> }): void => {
    outcomes.push(...result.outcomes);
    if (only.length) return;
    for (const [revision, names] of result.named)
      gone.push(...unknownEntries(expected, leg, revision, names).map((s) => `${leg} ${revision} ${s}`));
  };

  if (legs.includes('client')) {
    await build({
      entryPoints: [join(ROOT, 'scripts', 'conformance', 'client.ts')],
      bundle: true,
      platform: 'node',
      format: 'esm',
      packages: 'external',
      outfile: BUNDLE,
      logLevel: 'warning',
    });
    console.log(
      `MCP conformance ${SUITE_VERSION}, client leg: MiniHarness's MCPClient, revisions ${revisions.join(' and ')} (${concurrency} at a time)\n`,
    );
    collect(
      'client',
      await runLeg('client', revisions, only, `node ${relative(ROOT, BUNDLE)}`, concurrency, keepDir, judge),
    );
  }
  if (legs.includes('server')) {
    // The baseline: the same scenarios against our conformance double directly (test/doubles/servers/conformance-http.ts).
    const double = await startConformanceHttp();
    try {
      console.log(
        `\nMCP conformance ${SUITE_VERSION}, server leg: the conformance double directly (${double.url}), revisions ${revisions.join(' and ')} (${concurrency} at a time)\n`,
      );
      direct.push(
        ...(await runLeg('server', revisions, only, double.url, concurrency, undefined, judgeDirect)).outcomes,
      );
    } finally {
      await double.close();
    }
    const gateway = await startGatewayUnderTest('0.0.0-conformance');
    try {
      console.log(
        `\nMCP conformance ${SUITE_VERSION}, server leg: MiniHarness's agent gateway (${gateway.gatewayUrl}, through the token forwarder at ${gateway.url}), revisions ${revisions.join(' and ')} (${concurrency} at a time)\n`,
      );
      collect('server', await runLeg('server', revisions, only, gateway.url, concurrency, keepDir, judge));
      console.log(`(${gateway.approvals()} approvals given on the suite's behalf)`);
    } finally {
      await gateway.close();
    }
  }

  const unmatched = only.filter((scenario) => !outcomes.some((o) => o.scenario === scenario));
  if (unmatched.length) {
    console.log(`\n--only named what no selected leg and revision runs: ${unmatched.join(', ')}`);
    return 1;
  }

  for (const o of [...direct, ...outcomes]) {
    if (o.ok || (!verbose && o.verdict !== 'FAIL')) continue;
    console.log(
      `\n── ${o.verdict}: ${o.leg} ${o.revision} ${o.scenario} ──\n${o.problems.map((p) => `  ${p}`).join('\n')}`,
    );
    if (verbose || !o.total) console.log(o.output.trim());
  }

  console.log('\nTotals (required: scored by the suite; not scored: extensions, added after release, pending):');
  for (const leg of legs) {
    for (const revision of revisions) {
      const here = outcomes.filter((o) => o.leg === leg && o.revision === revision);
      if (!here.length) continue;
      const required = here.filter((o) => !o.notScored);
      const apart = here.filter((o) => o.notScored);
      const where = leg === 'server' ? 'gateway' : leg;
      if (leg === 'server') {
        const base = direct.filter((o) => o.revision === revision && !o.notScored);
        if (base.length) console.log(`  direct  ${revision}  required: ${totalsLine(base)}`);
      }
      if (required.length) console.log(`  ${where.padEnd(7)} ${revision}  required: ${totalsLine(required)}`);
      if (apart.length) console.log(`  ${where.padEnd(7)} ${revision}  not scored: ${totalsLine(apart)}`);
    }
  }
  // The gateway is held to the double: what passes directly passes through it, or is listed (withheld, with why).
  const behind = outcomes.filter(
    (o) =>
      o.leg === 'server' && !o.ok && direct.some((d) => d.ok && d.scenario === o.scenario && d.revision === o.revision),
  );
  if (behind.length)
    console.log(
      `  passes directly, not through the gateway: ${behind.map((o) => `${o.revision} ${o.scenario}${o.verdict === 'expected failure' ? ' (listed)' : ''}`).join(', ')}`,
    );
  console.log(`  ${((performance.now() - started) / 1000).toFixed(1)} s`);

  if (update) {
    const complete = only.length ? [] : legs.flatMap((leg) => revisions.map((revision) => ({ leg, revision })));
    const next = updatedExpected(expected, outcomes, complete);
    writeExpected(next);
    const nextDirect = updatedExpected(
      expectedDirect,
      direct,
      complete.filter((c) => c.leg === 'server'),
    );
    writeExpected({ ...nextDirect, client: { '2026-07-28': {}, '2025-11-25': {} } }, EXPECTED_DIRECT_FILE);
    const todo = [next, nextDirect]
      .flatMap((file) => Object.values(file))
      .flatMap((byRevision) => Object.values(byRevision).flatMap((entries) => Object.values(entries)))
      .filter((reason) => reason === TODO_REASON).length;
    console.log(
      `\nRewrote ${relative(ROOT, EXPECTED_FILE)} from this run${todo ? `; ${todo} entries need a reason (${TODO_REASON})` : ''}.`,
    );
    return todo ? 1 : 0;
  }

  const stale = [...direct, ...outcomes].filter((o) => o.verdict === 'STALE');
  const failed = [...direct, ...outcomes].filter((o) => o.verdict === 'FAIL');
  if (!only.length)
    for (const revision of revisions)
      if (direct.some((o) => o.revision === revision))
        gone.push(
          ...unknownEntries(
            expectedDirect,
            'server',
            revision,
            direct.filter((o) => o.revision === revision).map((o) => o.scenario),
          ).map((s) => `direct ${revision} ${s}`),
        );
  for (const o of stale)
    console.log(
      `STALE: ${o.target ?? o.leg} ${o.revision} ${o.scenario} passes now; remove it from ${relative(ROOT, o.target === 'direct' ? EXPECTED_DIRECT_FILE : EXPECTED_FILE)}`,
    );
  for (const entry of gone)
    console.log(
      `GONE: ${entry} is listed in ${relative(ROOT, EXPECTED_FILE)} but the suite does not name it; remove it`,
    );
  if (failed.length)
    console.log(`\nFAILED: ${failed.map((o) => `${o.target ?? o.leg} ${o.revision} ${o.scenario}`).join(', ')}`);
  if (stale.length || failed.length || gone.length)
    console.log(
      `(After a change that moves these, \`npm run test:conformance -- --update-expected\` rewrites the list; give each new entry its reason.)`,
    );
  return stale.length || failed.length || gone.length ? 1 : 0;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
