/**
 * Child process of the crash-recovery test: runs executeTool on a slow side-effecting MCP tool,
 * call after call (several loops at once), until the parent kills it with SIGKILL.
 * argv: <work dir> <database file> <counter file> <events file> <calls>
 */
import { stdioFixtureConfig } from '../helpers/fixtures.js';
import { buildHarness } from './harness.js';

const [dir, dbFile, counter, events, calls] = process.argv.slice(2) as [string, string, string, string, string];
const total = Number(calls);

const h = await buildHarness({ dir, dbFile, rules: [{ level: 'ALLOW', match: { serverId: 'fx' } }] });
h.registry.addServer(
  stdioFixtureConfig('fx', { FIXTURE_EVENTS: events, FIXTURE_COUNTER: counter, FIXTURE_TOOLS: 'slow_append' }),
);
await h.registry.discover();
process.stdout.write('ready\n');

// Four loops share the call ids, so claims, writes and completions overlap.
let next = 0;
async function loop(): Promise<void> {
  while (next < total) {
    const callId = `call-${next++}`;
    await h.harness
      .executeTool(
        'slow_append',
        { line: callId, ms: 15 },
        { userId: 'crash-test', sessionId: 'crash-session', callId },
      )
      .catch(() => undefined);
  }
}
await Promise.all([loop(), loop(), loop(), loop()]);
process.stdout.write('done\n');
await h.close();
