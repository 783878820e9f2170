/** Words for History: session names, record statuses, and main's error codes in plain language. */
import type { HistoryRecordView } from '../../../../shared/contract.js';
import type { SessionView } from '../../state/slices/historySlice.js';

const sessionDateFormat = new Intl.DateTimeFormat(undefined, { month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit' });
const sessionDateYearFormat = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });

/** When a GUI session started, read from its id (`gui-2025-11-29T23-19-00-000Z-…`). */
export function guiSessionStart(sessionId: string): number | undefined {
  const m = /^gui-(\d{4})-(\d{2})-(\d{2})T(\d{2})-(\d{2})-(\d{2})-(\d{3})Z-/.exec(sessionId);
  if (!m) return undefined;
  const [, y, mo, d, h, mi, s, ms] = m.map(Number) as number[];
  return Date.UTC(y!, mo! - 1, d!, h!, mi!, s!, ms!);
}

/** "This app session", "App session · Nov 29, 23:19" (the year when not this one), or the id as it is. */
export function sessionLabel(session: Pick<SessionView, 'sessionId' | 'current'>): string {
  if (session.current) return 'This app session';
  const started = guiSessionStart(session.sessionId);
  if (started === undefined) return session.sessionId;
  const format = new Date(started).getFullYear() === new Date().getFullYear() ? sessionDateFormat : sessionDateYearFormat;
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
};

/** True for a completed call whose result (whole, or left out of a page row) has `isError`. */
export function isToolError(record: Pick<HistoryRecordView, 'status' | 'result' | 'preview'>): boolean {
  return record.status === 'completed' && (record.result?.isError ?? record.preview?.resultIsError ?? false);
}

export function displayStatus(record: Pick<HistoryRecordView, 'status' | 'result' | 'preview'>): RecordDisplayStatus {
  return isToolError(record) ? 'tool_error' : record.status;
}

const ERROR_TITLES: Record<string, string> = {
  not_replayable: 'Nothing to replay',
  args_redacted: 'Its arguments held secrets',
  not_rerunnable: 'Nothing to run again',
  not_found: 'Not found',
  not_resolvable: 'Already resolved',
  still_running: 'Still running',
  permission_denied: 'Permission denied',
  approval_cancelled: 'Approval cancelled',
  approval_timeout: 'No answer in time',
  duplicate_call: 'Already running',
  in_progress: 'In progress or unknown',
  arguments_mismatch: 'Call id already used',
  unknown_tool: 'Tool not available',
  timeout: 'Timed out',
  disconnected: 'Not connected to MiniHarness',
};

/** A short title for an error code; the message (main writes it for people) goes below it. */
export function errorTitle(code: string, fallback: string): string {
  return ERROR_TITLES[code] ?? fallback;
}
