/**
 * Child process of the task kill test: the core (executeTool) calls the task fixture's
 * `long_job` once, prints `task <id>` as soon as the server names the task (its id is then on the
 * checkpoint), and waits for its end — until the parent kills it with SIGKILL.
 * argv: <work dir> <database file> <tasks dir> <session id> <call id>
 */
import { taskServerConfig } from '../doubles/servers/taskPeer.js';
import { buildHarness } from './harness.js';

const [dir, dbFile, tasksDir, sessionId, callId] = process.argv.slice(2) as [string, string, string, string, string];

const h = await buildHarness({ dir, dbFile, rules: [{ level: 'ALLOW', match: { serverId: 'tasks' } }] });
h.registry.addServer(taskServerConfig('tasks', tasksDir));
await h.registry.discover();
let told = false;
await h.harness.executeTool(
  'long_job',
  { label: 'ledger' },
  {
    userId: 'kill-test',
    sessionId,
    callId,
    onTask: (event) => {
      if (told) return;
      told = true;
      process.stdout.write(`task ${event.taskId}\n`);
    },
  },
);
process.stdout.write('done\n');
await h.close();
