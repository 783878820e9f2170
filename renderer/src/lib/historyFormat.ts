/** Words for History: session names and record statuses (errors are worded in lib/describeError.ts). */
import type { HistoryRecordView } from '../../../shared/contract.js';
import type { SessionView } from '../state/slices/historySlice.js';

const sessionDateFormat = new Intl.DateTimeFormat(undefined, {
  month: 'short',
  day: 'numeric',
  hour: '2-digit',
  minute: '2-digit',
});
const sessionDateYearFormat = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });

/** When a GUI session started, read from its id (`gui-2025-11-29T23-19-00-000Z-…`). */
function guiSessionStart(sessionId: string): number | undefined {
  const m = /^gui-(\d{4})-(\d{2})-(\d{2})T(\d{2})-(\d{2})-(\d{2})-(\d{3})Z-/.exec(sessionId);
  if (!m) return undefined;
  const [, y, mo, d, h, mi, s, ms] = m.map(Number) as number[];
  return Date.UTC(y!, mo! - 1, d!, h!, mi!, s!, ms!);
}

/** How many characters of an agent's session id or key a label shows. */
const SHORT_ID = 6;
const SHORT_KEY = 24;

/**
 * An agent's session id as the gateway makes it — `agent:<agent id>:mcp-<MCP session id>` (a 2025
 * session), `agent:<agent id>:stateless` (2026-07-28 requests), `agent:<agent id>:<session key the
 * agent passed with its callId>` (`default` when it passed none) — or undefined for any other id.
 */
export function agentSessionOf(
  sessionId: string,
): { agentId: string; kind: 'mcp' | 'stateless' | 'keyed'; key: string } | undefined {
  const m = /^agent:([^:]+):(.+)$/.exec(sessionId);
  if (!m) return undefined;
  const [, agentId, rest] = m as unknown as [string, string, string];
  if (rest.startsWith('mcp-')) return { agentId, kind: 'mcp', key: rest.slice(4) };
  if (rest === 'stateless') return { agentId, kind: 'stateless', key: rest };
  return { agentId, kind: 'keyed', key: rest };
}

function shortened(text: string, length: number): string {
  return text.length > length ? `${text.slice(0, length)}…` : text;
}

/** "Claude Code · session 3f2a1b…", "Claude Code · 2026-07-28 calls", "Claude Code · calls keyed "nightly"". */
function agentSessionLabel(
  parts: NonNullable<ReturnType<typeof agentSessionOf>>,
  agents: readonly AgentName[],
): string {
  const name = agents.find((a) => a.id === parts.agentId)?.name ?? 'A removed agent';
  if (parts.kind === 'mcp') return `${name} · session ${shortened(parts.key, SHORT_ID)}`;
  if (parts.kind === 'stateless') return `${name} · 2026-07-28 calls`;
  return parts.key === 'default'
    ? `${name} · calls with a callId`
    : `${name} · calls keyed “${shortened(parts.key, SHORT_KEY)}”`;
}

/** What a session label needs of an agent. */
export interface AgentName {
  id: string;
  name: string;
}

/** An agent run as a session's label needs it: its id (the run's calls' session id), task and model. */
export interface RunName {
  id: string;
  title: string;
  modelName: string;
}

/** A run by its task (shortened) and model: "Agent run: write the file (Local Llama)". */
export function runSessionLabel(run: Pick<RunName, 'title' | 'modelName'>): string {
  const task = run.title.length > 48 ? `${run.title.slice(0, 47)}…` : run.title;
  return `Agent run: ${task} (${run.modelName})`;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * "This app session", "App session · Nov 29, 23:19" (the year when not this one), an agent's
 * session by the agent's name (see agentSessionLabel; `agents`: those known now), an agent run's
 * by its task and model (`runs`: those listed now; a deleted run by its short id), or the id as it is.
 */
export function sessionLabel(
  session: Pick<SessionView, 'sessionId' | 'current'>,
  agents: readonly AgentName[] = [],
  runs: readonly RunName[] = [],
): string {
  if (session.current) return 'This app session';
  const agent = agentSessionOf(session.sessionId);
  if (agent) return agentSessionLabel(agent, agents);
  const run = runs.find((r) => r.id === session.sessionId);
  if (run) return runSessionLabel(run);
  const started = guiSessionStart(session.sessionId);
  // A run's session is its id (a UUID): one no longer listed (deleted) is shown short, not as 36 characters.
  if (started === undefined && UUID.test(session.sessionId)) return `Session ${session.sessionId.slice(0, 8)}…`;
  if (started === undefined) return session.sessionId;
  const format =
    new Date(started).getFullYear() === new Date().getFullYear() ? sessionDateFormat : sessionDateYearFormat;
  return `App session · ${format.format(started)}`;
}

/** A record's status as shown: `tool_error` is a completed call whose result has `isError`. */
export type RecordDisplayStatus = HistoryRecordView['status'] | 'tool_error';

export const RECORD_STATUS_LABELS: Record<RecordDisplayStatus, string> = {
  started: 'Running',
  unknown: 'Result unknown',
  completed: 'Completed',
  tool_error: 'Tool error',
  failed: 'Failed',
  cancelled: 'Cancelled',
};

/** True for a completed call whose result (whole, or left out of a page row) has `isError`. */
function isToolError(record: Pick<HistoryRecordView, 'status' | 'result' | 'preview'>): boolean {
  return record.status === 'completed' && (record.result?.isError ?? record.preview?.resultIsError ?? false);
}

export function displayStatus(record: Pick<HistoryRecordView, 'status' | 'result' | 'preview'>): RecordDisplayStatus {
  return isToolError(record) ? 'tool_error' : record.status;
}
