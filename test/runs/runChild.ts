/**
 * Child process of the kill -9 test: starts one agent run (real pipeline, real stdio server, the
 * parent's loopback provider) and waits for it, until the parent kills it with SIGKILL.
 * argv: <work dir> <database file> <counter file> <fixture events file> <loopback origin> <run id> <anthropic|openai|openai_responses> [tasks dir]
 */
import { buildRunHarness, loopbackModel } from './runHarness.js';
import { KILL_PROMPT } from './killScript.js';

const [dir, dbFile, counter, events, origin, runId, kind, tasksDir] = process.argv.slice(2) as [
  string,
  string,
  string,
  string,
  string,
  string,
  string,
  string | undefined,
];

const rh = await buildRunHarness({
  dir,
  dbFile,
  counter,
  events,
  rules: [{ level: 'ALLOW', match: { serverId: 'fx' } }],
  ...(tasksDir ? { tasksDir } : {}),
});
await rh.engine.start({
  id: runId,
  model: loopbackModel(kind === 'openai' || kind === 'openai_responses' ? kind : 'anthropic', origin),
  visibility: { allServers: true, serverIds: [], localTools: false },
  prompt: KILL_PROMPT,
});
process.stdout.write('started\n');
const done = await rh.engine.settled(runId);
process.stdout.write(`settled ${done.status}\n`);
await rh.close();
