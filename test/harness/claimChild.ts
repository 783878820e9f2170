/**
 * Child process of the claim-durability test: starts CALLS calls of the fixture's `slow` tool at
 * once through executeTool (a minute each, so they are all still running when the parent kills
 * this process). argv: <work dir> <database file> <events file> <calls>
 */
import { stdioFixtureConfig } from '../helpers/fixtures.js';
import { buildHarness } from './harness.js';

const [dir, dbFile, events, calls] = process.argv.slice(2) as [string, string, string, string];

const h = await buildHarness({ dir, dbFile, rules: [{ level: 'ALLOW', match: { serverId: 'fx' } }] });
h.registry.addServer(stdioFixtureConfig('fx', { FIXTURE_EVENTS: events, FIXTURE_TOOLS: 'slow' }));
await h.registry.discover();
process.stdout.write('ready\n');
await Promise.all(
  Array.from({ length: Number(calls) }, (_, i) =>
    h.harness
      .executeTool('slow', { ms: 60_000 }, { userId: 'durability-test', sessionId: 'durability', callId: `call-${i}` })
      .catch(() => undefined),
  ),
);
