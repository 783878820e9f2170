/**
 * "At most once per callId" across restarts, through the real host process: kill -9 mid-call
 * (4 times, and one clean SIGTERM stop), and after every start every callId used so far is sent again
 * over the WebSocket bridge. The 20-kill version is `npm run bench:soak`.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import type { SoakReport } from './restartSoak.js';
import { buildSideEffectServer, judgeAnswer, runRestartSoak } from './restartSoak.js';

const KILLS = 4;
const CLEAN_STOPS = 1;
const COMPLETED_PER_ROUND = 2;

describe('the browser-mode host killed mid-call and restarted', () => {
  let report: SoakReport;

  beforeAll(async () => {
    await buildSideEffectServer();
    report = await runRestartSoak({ kills: KILLS, cleanStops: CLEAN_STOPS, completedPerRound: COMPLETED_PER_ROUND });
  }, 240_000);

  it('ran every callId exactly once: no re-send after a restart ran its side effect again', () => {
    const rounds = KILLS + CLEAN_STOPS;
    expect(report.calls).toBe(rounds * (COMPLETED_PER_ROUND + 1));
    expect(report.exits.filter((e) => e.signal === 'SIGKILL')).toHaveLength(KILLS);
    // One line per callId in the side-effect file: completed calls ran once, held calls acted once.
    expect(Object.keys(report.executions).sort()).toEqual(report.known.map((k) => k.callId).sort());
    for (const call of report.known) expect(report.executions[call.callId], call.callId).toBe(1);
    expect(report.duplicates).toBe(0);
  });

  it('answers each re-send with a replay of the same result, or "in progress or result unknown"', () => {
    // After start k (1-based), every callId of the k previous rounds was sent again.
    const perRound = COMPLETED_PER_ROUND + 1;
    let expected = 0;
    for (let start = 1; start <= KILLS + CLEAN_STOPS; start++) expected += start * perRound;
    expect(report.resends).toBe(expected);
    expect(report.answers.map((a) => judgeAnswer(a, report.known)).filter(Boolean)).toEqual([]);
    const replays = report.answers.filter((a) => a.reply.ok && (a.reply.result as { replayed: boolean }).replayed);
    const unknown = report.answers.filter((a) => !a.reply.ok && a.reply.error.code === 'in_progress');
    expect(replays.length).toBeGreaterThan(0);
    expect(unknown.length).toBeGreaterThan(0);
    expect(replays.length + unknown.length).toBe(expected);
  });

  it('closes the trace of a killed call as interrupted at the next start; a clean stop leaves none running', () => {
    expect(report.heldTraces.map((t) => t.kind)).toEqual([
      ...Array<string>(KILLS).fill('killed'),
      ...Array<string>(CLEAN_STOPS).fill('stopped'),
    ]);
    for (const trace of report.heldTraces.filter((t) => t.kind === 'killed'))
      expect(trace.status, trace.callId).toBe('interrupted');
    for (const trace of report.heldTraces.filter((t) => t.kind === 'stopped'))
      expect(trace.status, trace.callId).not.toBe('running');
  });

  it('keys the GUI’s calls by one session that every start shares', () => {
    expect(report.guiSessions).toHaveLength(KILLS + CLEAN_STOPS + 1);
    expect(new Set(report.guiSessions).size).toBe(1);
  });
});
