/**
 * Soak: "at most once per callId" across kill -9 of the real browser-mode host.
 *
 * The host (`electron/web/cli.ts`, its own process) runs the side-effect fixture server (stdio);
 * every call goes over the real WebSocket bridge. Each round: start the host on the same data
 * folder, re-send every callId used so far, make calls that complete, start one that holds after
 * acting, and SIGKILL the host mid-call (the last rounds stop it with SIGTERM instead). Side
 * effects are counted per callId in the fixture's file; every re-send's answer is judged (a
 * replay of the same result, or "in progress or result unknown"); the trace of each killed call
 * is read after the next start (it must be `interrupted`).
 *
 * Prints a table, then one JSON line. Run: npm run bench:soak
 * Env: SOAK_KILLS (20), SOAK_CLEAN_STOPS (2), SOAK_COMPLETED_PER_ROUND (5).
 */
import { cpus } from 'node:os';
import { printTable } from './pipelineHelpers.js';
import { buildSideEffectServer, judgeAnswer, runRestartSoak } from '../test/restart/restartSoak.js';

const KILLS = Number(process.env.SOAK_KILLS ?? 20);
const CLEAN_STOPS = Number(process.env.SOAK_CLEAN_STOPS ?? 2);
const COMPLETED_PER_ROUND = Number(process.env.SOAK_COMPLETED_PER_ROUND ?? 5);

async function main(): Promise<void> {
  await buildSideEffectServer();
  const startedAt = performance.now();
  const report = await runRestartSoak({
    kills: KILLS,
    cleanStops: CLEAN_STOPS,
    completedPerRound: COMPLETED_PER_ROUND,
    log: (line) => console.error(line),
  });
  const seconds = (performance.now() - startedAt) / 1000;

  const wrong = report.answers.map((a) => judgeAnswer(a, report.known)).filter((w): w is string => w !== undefined);
  const replayed = report.answers.filter(
    (a) => a.reply.ok && (a.reply.result as { replayed: boolean }).replayed,
  ).length;
  const unknown = report.answers.filter((a) => !a.reply.ok && a.reply.error.code === 'in_progress').length;
  const executed = Object.values(report.executions).reduce((sum, n) => sum + n, 0);
  const neverRan = report.known.filter((k) => !report.executions[k.callId]).length;
  const killedTraces = report.heldTraces.filter((t) => t.kind === 'killed');
  const interrupted = killedTraces.filter((t) => t.status === 'interrupted').length;
  const stopped = report.heldTraces.filter((t) => t.kind === 'stopped');
  const stoppedRunning = stopped.filter((t) => t.status === 'running').length;
  const sessions = new Set(report.guiSessions).size;

  printTable([
    ['restart soak', 'value', ''],
    ['callIds sent', String(report.calls), `${COMPLETED_PER_ROUND} completed + 1 held per round`],
    ['host starts', String(report.starts), ''],
    ['kill -9 mid-call', String(report.kills), ''],
    ['SIGTERM mid-call', String(report.cleanStops), ''],
    ['re-sends after restarts', String(report.resends), ''],
    ['  answered by a replay of the same result', String(replayed), ''],
    ['  answered "in progress or result unknown"', String(unknown), ''],
    ['  any other answer', String(wrong.length), wrong.slice(0, 3).join('; ')],
    ['side effects in the file', String(executed), `for ${report.calls} callIds`],
    ['duplicate side effects', String(report.duplicates), ''],
    ['callIds that never acted', String(neverRan), ''],
    ['killed calls whose trace is interrupted', `${interrupted}/${killedTraces.length}`, ''],
    [
      'traces left running after a clean stop',
      String(stoppedRunning),
      `statuses: ${stopped.map((t) => t.status).join(', ')}`,
    ],
    ['GUI sessions across all starts', String(sessions), ''],
    ['wall time', `${seconds.toFixed(1)} s`, `${(seconds / report.starts).toFixed(1)} s per start`],
  ]);
  console.log(`(${process.platform}, ${cpus().length} cores, node ${process.versions.node})`);
  console.log(
    JSON.stringify({
      bench: 'restart-soak',
      calls: report.calls,
      kills: report.kills,
      clean_stops: report.cleanStops,
      resends: report.resends,
      duplicates: report.duplicates,
      wrong_answers: wrong.length,
      interrupted_traces: interrupted,
      killed_calls: killedTraces.length,
      gui_sessions: sessions,
    }),
  );
  if (report.duplicates > 0 || wrong.length > 0 || interrupted !== killedTraces.length) process.exitCode = 1;
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
