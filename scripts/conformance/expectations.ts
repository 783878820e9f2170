/**
 * scripts/conformance/expected-failures.json: the scenarios the product is known to fail, per leg
 * (client, server) and per revision, each with its reason. The list is kept honest both ways: a
 * failure that is not listed fails the run, and so does a listed scenario that passes (stale) or
 * one the revision does not name (gone). `--update-expected` rewrites the file from a run: what
 * still fails keeps its reason, a new failure gets `TODO reason`, what passes is dropped.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Leg, Outcome, Revision } from './suite.js';
import { REVISIONS, ROOT } from './suite.js';

export const EXPECTED_FILE = join(ROOT, 'scripts', 'conformance', 'expected-failures.json');
/** The server leg against the conformance double directly: what the double itself fails, with why. */
export const EXPECTED_DIRECT_FILE = join(ROOT, 'scripts', 'conformance', 'expected-failures-direct.json');
export const TODO_REASON = 'TODO reason';

/** leg → revision → scenario → why it fails. */
export type ExpectedFailures = Record<Leg, Record<Revision, Record<string, string>>>;

export type Verdict = 'pass' | 'expected failure' | 'FAIL' | 'STALE';

const COMMENT =
  'Scenarios of the MCP conformance suite the product fails today, per leg and revision, with why. A scenario that fails unlisted, or passes while listed, fails `npm run test:conformance`. Regenerate with `npm run test:conformance -- --update-expected`, then replace each "TODO reason".';

function empty(): ExpectedFailures {
  const revisions = (): Record<Revision, Record<string, string>> =>
    Object.fromEntries(REVISIONS.map((r) => [r, {}])) as Record<Revision, Record<string, string>>;
  return { client: revisions(), server: revisions() };
}

export function loadExpected(file = EXPECTED_FILE): ExpectedFailures {
  const raw = JSON.parse(readFileSync(file, 'utf8')) as Partial<
    Record<Leg, Partial<Record<Revision, Record<string, string>>>>
  >;
  const expected = empty();
  for (const leg of ['client', 'server'] as const) {
    for (const revision of REVISIONS) Object.assign(expected[leg][revision], raw[leg]?.[revision] ?? {});
  }
  return expected;
}

export function verdictOf(outcome: Outcome, expected: ExpectedFailures): Verdict {
  const listed = outcome.scenario in expected[outcome.leg][outcome.revision];
  if (outcome.ok) return listed ? 'STALE' : 'pass';
  return listed ? 'expected failure' : 'FAIL';
}

/** Listed scenarios the revision no longer names (only meaningful after a run of the whole leg and revision). */
export function unknownEntries(
  expected: ExpectedFailures,
  leg: Leg,
  revision: Revision,
  named: readonly string[],
): string[] {
  return Object.keys(expected[leg][revision]).filter((scenario) => !named.includes(scenario));
}

/**
 * The list after a run: for every leg and revision that ran, exactly what failed (its old reason
 * kept, else TODO); a complete run of a leg and revision also drops entries it did not run.
 * Everything that did not run is kept as it was.
 */
export function updatedExpected(
  expected: ExpectedFailures,
  outcomes: readonly Outcome[],
  complete: ReadonlyArray<{ leg: Leg; revision: Revision }>,
): ExpectedFailures {
  const next = empty();
  for (const leg of ['client', 'server'] as const) {
    for (const revision of REVISIONS) {
      const ran = outcomes.filter((o) => o.leg === leg && o.revision === revision);
      const wasComplete = complete.some((c) => c.leg === leg && c.revision === revision);
      const old = expected[leg][revision];
      const entries: Record<string, string> = {};
      for (const [scenario, reason] of Object.entries(old)) {
        if (!wasComplete && !ran.some((o) => o.scenario === scenario)) entries[scenario] = reason;
      }
      for (const o of ran) if (!o.ok) entries[o.scenario] = old[o.scenario] ?? TODO_REASON;
      next[leg][revision] = entries;
    }
  }
  return next;
}

export function writeExpected(expected: ExpectedFailures, file = EXPECTED_FILE): void {
  writeFileSync(file, `${JSON.stringify({ $comment: COMMENT, ...expected }, null, 2)}\n`);
}
