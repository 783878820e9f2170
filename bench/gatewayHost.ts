/**
 * The gateway benches' host as users run it: built JavaScript under plain node, not the sources under tsx (issue 33).
 *
 * The browser-mode host (electron/web/cli.ts) has no build of its own, so it is bundled here as `npm run build`
 * bundles `miniharness` (scripts/buildCli.ts `bundleNodeEntry`: esbuild, bare imports external) into out/main, beside the WAL
 * checkpointer's and the span exporter's worker files, which the host starts from its own folder. tsx also turns on
 * source maps for every stack a host builds (the SDK builds errors on the call path), which the built app does not.
 * `BENCH_HOST=tsx` keeps the sources under tsx (the figures before this file); so does a profile (`tsxForProfile`),
 * whose parts are named by source file, which one bundle would hide.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { bundleNodeEntry } from '../scripts/buildCli.js';
import { PROJECT_ROOT } from '../test/helpers/fixtures.js';
import { ok } from '../test/restart/restartSoak.js';
import type { BridgeClient } from '../test/web/host.js';
import type { AblationPart } from './ablationParts.js';
import { withoutCheckpoints } from './ablationParts.js';

/** The built host's entry, or undefined for tsx (`BENCH_HOST=tsx`). Needs `npm run build` first (its workers). */
export async function builtHostEntry(tsxForProfile = false): Promise<string | undefined> {
  if (underTsx(tsxForProfile)) return undefined;
  return bundled(join(PROJECT_ROOT, 'electron', 'web', 'cli.ts'), 'benchWebHost.js');
}

/**
 * The same host with parts of the record taken away (bench/ablationHost.ts, `MINIHARNESS_BENCH_ABLATE`), as the
 * node arguments and script that start it: bundled like the host, or its source under tsx where the host runs so.
 */
export async function ablationHostEntry(tsxForProfile = false): Promise<{ nodeArgs: string[]; entry: string }> {
  const source = join(PROJECT_ROOT, 'bench', 'ablationHost.ts');
  if (underTsx(tsxForProfile)) return { nodeArgs: ['--import', 'tsx'], entry: source };
  return { nodeArgs: [], entry: await bundled(source, 'benchAblationHost.js') };
}

/**
 * Fails unless an ablated host's first call (its trace id given) left no trace, or no record in History, as its
 * parts say — a patch that did not take would otherwise read as a part that costs nothing.
 */
export async function checkAblation(
  bridge: BridgeClient,
  parts: readonly AblationPart[],
  traceId: string,
): Promise<void> {
  const traced = (await bridge.call('traces.get', { traceId })).ok;
  const { sessions } = await ok<{ sessions: Array<{ count: number }> }>(bridge, 'history.sessions', {});
  const recorded = sessions.some((session) => session.count > 0);
  if (traced === parts.includes('traces') || recorded === withoutCheckpoints(parts))
    throw new Error(`the host without ${parts.join(', ')}: its first call was traced ${traced}, recorded ${recorded}`);
}

/** Whether the bench's host runs from its sources under tsx: asked for, or for a profile unless built is asked for. */
function underTsx(tsxForProfile: boolean): boolean {
  return process.env.BENCH_HOST === 'tsx' || (tsxForProfile && process.env.BENCH_HOST !== 'built');
}

/** `source` bundled into out/main as `name`, beside the workers the host starts from its own folder. */
async function bundled(source: string, name: string): Promise<string> {
  const folder = join(PROJECT_ROOT, 'out', 'main');
  if (!existsSync(join(folder, 'walCheckpointWorker.js')))
    throw new Error('The bench runs the built host: run `npm run build` first (or BENCH_HOST=tsx for the sources).');
  const outfile = join(folder, name);
  await bundleNodeEntry(source, outfile);
  return outfile;
}
