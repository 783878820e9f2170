/**
 * The conformance runner reads each scenario's results from the folder the suite wrote for it,
 * `<name>-<timestamp>`: exactly that name (a scenario whose name begins with another's —
 * `auth/iss-supported` and `auth/iss-supported-missing` — must not take the other's results),
 * the newest run of it. Before the fix the match was a prefix and the pick the last by sort, so
 * `auth/iss-supported` was judged by `iss-supported-missing`'s checks.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { findChecksFor } from '../../scripts/conformance/suite.js';
import { scratchDir } from '../helpers/fixtures.js';

let scratch: ReturnType<typeof scratchDir>;

beforeEach(() => {
  scratch = scratchDir('mh-conformance-results-');
});
afterEach(() => scratch.cleanup());

/** A run's folder as the suite names it, with a checks.json. */
function run(name: string, at: Date): string {
  const folder = join(scratch.dir, `${name}-${at.toISOString().replace(/[:.]/g, '-')}`);
  mkdirSync(folder, { recursive: true });
  writeFileSync(join(folder, 'checks.json'), '[]');
  return join(folder, 'checks.json');
}

describe("the runner finds a scenario's own results", () => {
  it('a scenario whose name begins with another’s does not take its results', async () => {
    const own = run('auth/iss-supported', new Date('2026-12-03T10:00:00.000Z'));
    run('auth/iss-supported-missing', new Date('2026-12-03T10:00:05.000Z'));
    expect(await findChecksFor(scratch.dir, 'auth/iss-supported')).toBe(own);
    expect(await findChecksFor(scratch.dir, 'auth/iss-supported-missing')).not.toBe(own);
  });

  it('of several runs of one scenario, the newest', async () => {
    run('server-tools-list', new Date('2026-12-03T09:59:59.999Z'));
    const newest = run('server-tools-list', new Date('2026-12-03T10:00:00.000Z'));
    run('server-tools-list-extra', new Date('2026-12-03T11:00:00.000Z'));
    expect(await findChecksFor(scratch.dir, 'server-tools-list')).toBe(newest);
  });

  it('no run of it: nothing', async () => {
    run('auth/iss-supported-missing', new Date('2026-12-03T10:00:05.000Z'));
    expect(await findChecksFor(scratch.dir, 'auth/iss-supported')).toBeUndefined();
  });
});
