/** Words for History: session names and record statuses (errors are worded in ui/errors/describeError.ts). */
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
  cancelled: 'Cancelled',
};

/** True for a completed call whose result (whole, or left out of a page row) has `isError`. */
export function isToolError(record: Pick<HistoryRecordView, 'status' | 'result' | 'preview'>): boolean {
  return record.status === 'completed' && (record.result?.isError ?? record.preview?.resultIsError ?? false);
}

export function displayStatus(record: Pick<HistoryRecordView, 'status' | 'result' | 'preview'>): RecordDisplayStatus {
  return isToolError(record) ? 'tool_error' : record.status;
}
