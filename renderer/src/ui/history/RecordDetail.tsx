/**
 * One recorded call: its arguments, result, last error, attempts and resolution, and what can be
 * done with it — replay a completed call (its stored result; nothing runs), run it again as a new
 * call (permissions and approval again), resolve a call whose result is unknown by hand, or ask the
 * server now how a call it ran as a task ended.
 */
import { useEffect, useState } from 'react';
import type { CallOutcome, HistoryRecordView } from '../../../../shared/contract.js';
import { BridgeError, messageOf } from '../../bridge/index.js';
import { formatBytes, formatDateTime } from '../../lib/format.js';
import { callerLabel } from '../../lib/callers.js';
import { useAppStore } from '../../state/useAppStore.js';
import { Callout } from '../components/Callout.js';
import { ConfirmDialog } from '../components/ConfirmDialog.js';
import { Icon } from '../components/Icon.js';
import { describeFailure } from '../../lib/describeError.js';
import { JsonTree } from '../components/JsonTree.js';
import { Spinner } from '../components/Spinner.js';
import { ManualBadge, RecordStatusBadge } from './RecordStatusBadge.js';
import { ResolveDialog } from './ResolveDialog.js';
import { ResultContent } from './ResultContent.js';
import { AppFrame } from '../components/apps/AppFrame.js';
import { useToolWithApp } from '../components/apps/toolApp.js';

type Action = 'replay' | 'rerun';
type Shown =
  | { kind: Action; outcome: CallOutcome }
  | { kind: 'error'; action: Action; title: string; message: string; traceId?: string };

function TraceButton({ traceId, label }: { traceId: string; label: string }) {
  const openTrace = useAppStore((s) => s.openTrace);
  return (
    <button type="button" className="btn btn-small" onClick={() => openTrace(traceId)}>
      <Icon name="traces" size={14} />
      {label}
    </button>
  );
}

function TraceLink({ traceId }: { traceId: string }) {
  const openTrace = useAppStore((s) => s.openTrace);
  return (
    <button type="button" className="btn btn-small btn-ghost title-link" onClick={() => openTrace(traceId)}>
      <Icon name="traces" size={14} />
      Open trace
    </button>
  );
}

/** A record's arguments as an app's tool input (an object), else nothing. */
function argsObject(args: unknown): Record<string, unknown> | undefined {
  return args !== null && typeof args === 'object' && !Array.isArray(args)
    ? (args as Record<string, unknown>)
    : undefined;
}

/**
 * The tool's app (MCP Apps) driven by a stored or replayed result: nothing runs for it, and what
 * the app itself asks to run is refused (`stored`). A rerun's result is a new call's: its app is live.
 */
function RecordApp({
  record,
  result,
  testId,
  stored,
  forCall,
}: {
  record: HistoryRecordView;
  result: CallOutcome['result'] | undefined;
  testId: string;
  stored: boolean;
  /** The call shown (the record's, or a rerun's new call). */
  forCall: { sessionId: string; callId: string };
}) {
  const tool = useToolWithApp(record.serverId, record.toolName);
  if (!tool || !result) return null;
  return (
    <AppFrame
      tool={tool}
      input={argsObject(record.args)}
      result={result}
      testId={testId}
      stored={stored}
      forCall={forCall}
    />
  );
}

function OutcomePanel({
  shown,
  record,
  onDismiss,
}: {
  shown: Shown;
  record: HistoryRecordView;
  onDismiss: () => void;
}) {
  const dismiss = (
    <button type="button" className="btn btn-small btn-ghost" onClick={onDismiss}>
      Dismiss
    </button>
  );
  if (shown.kind === 'error') {
    return (
      <Callout
        tone="error"
        title={shown.title}
        actions={
          <>
            {shown.traceId && <TraceButton traceId={shown.traceId} label="Open trace" />}
            {dismiss}
          </>
        }
      >
        {shown.message}
      </Callout>
    );
  }
  const { outcome } = shown;
  const replayed = shown.kind === 'replay' || outcome.replayed;
  return (
    <section
      className={`outcome ${replayed ? 'outcome-replayed' : 'outcome-ran'}`}
      aria-label={replayed ? 'Replayed result' : 'Result of the new call'}
      data-testid="history-outcome"
    >
      <header className="outcome-head">
        <Icon name={replayed ? 'history' : 'check'} size={18} />
        <div className="outcome-heading">
          <p className="outcome-title">{replayed ? 'Replayed — nothing was executed' : 'Ran again as a new call'}</p>
          <p className="outcome-text">
            {replayed ? (
              'This is the result stored when the call completed. The tool did not run; a replay trace records that you looked.'
            ) : (
              <>
                New call <code>{outcome.callId}</code> · {outcome.attempts}{' '}
                {outcome.attempts === 1 ? 'attempt' : 'attempts'}
              </>
            )}
          </p>
        </div>
        <div className="outcome-actions">
          <TraceButton traceId={outcome.traceId} label={replayed ? 'Replay trace' : 'Its trace'} />
          {dismiss}
        </div>
      </header>
      {outcome.warnings.length > 0 && (
        <ul className="plain-list outcome-warnings">
          {outcome.warnings.map((w) => (
            <li key={w}>{w}</li>
          ))}
        </ul>
      )}
      <ResultContent result={outcome.result} />
      <RecordApp
        record={record}
        result={outcome.result}
        testId={replayed ? 'replay-app' : 'rerun-app'}
        stored={replayed}
        forCall={{ sessionId: outcome.sessionId, callId: outcome.callId }}
      />
    </section>
  );
}

/**
 * The whole record behind a list row: a row with large arguments or a result carries only their
 * preview, so the record is fetched once when the row is opened (or changes).
 */
function useWholeRecord(row: HistoryRecordView): {
  record: HistoryRecordView;
  loading: boolean;
  error: string | undefined;
} {
  const getHistoryRecord = useAppStore((s) => s.getHistoryRecord);
  const [loaded, setLoaded] = useState<{ record?: HistoryRecordView; error?: string; for?: number }>({});
  const needed = row.preview?.truncated === true;
  const { sessionId, callId, updatedAt } = row;
  useEffect(() => {
    if (!needed) return;
    let live = true;
    getHistoryRecord({ sessionId, callId } as HistoryRecordView).then(
      (record) => live && setLoaded({ record, for: updatedAt }),
      (error: unknown) => live && setLoaded({ error: messageOf(error), for: updatedAt }),
    );
    return () => {
      live = false;
    };
  }, [needed, sessionId, callId, updatedAt, getHistoryRecord]);
  const current = loaded.for === updatedAt;
  return {
    record: needed && current && loaded.record ? loaded.record : row,
    loading: needed && !current,
    error: needed && current ? loaded.error : undefined,
  };
}

/** The start of a large value, while (or instead of, when it cannot be loaded) the whole one. */
function PreviewBlock({
  text,
  bytes,
  loading,
  error,
  what,
}: {
  text: string;
  bytes: number;
  loading: boolean;
  error: string | undefined;
  what: string;
}) {
  return (
    <div className="record-preview" data-testid="record-preview">
      <p className="card-note">
        {loading ? <Spinner label="Loading" /> : null} {what === 'result' ? 'The result' : 'The arguments'}:{' '}
        {formatBytes(bytes)}. {loading ? 'Loading all of it…' : error ? 'Only the start can be shown:' : 'The start:'}
      </p>
      {error && (
        <Callout tone="error" title={`Could not load the whole ${what}`}>
          {error}
        </Callout>
      )}
      <pre className="code-block">{text}…</pre>
    </div>
  );
}

/** The last look at a record's task that did not settle it (harness/taskRecovery.ts writes it as the record's last error). */
function taskCheckNote(record: HistoryRecordView): { code: string; message: string; at: number } | undefined {
  const error = record.lastError;
  return record.status === 'unknown' && record.taskId && error?.code?.startsWith('task_')
    ? { code: error.code, message: error.message, at: error.at }
    : undefined;
}

/**
 * A record whose call the server ran as a task, its end not known: what the app last learned of
 * the task says what is true — not asked yet, the server not ready, or the server no longer
 * knowing the task (whether the tool acted is unknown: the person resolves it).
 */
function TaskCallout({
  record,
  taskId,
  asking,
  onAsk,
}: {
  record: HistoryRecordView;
  taskId: string;
  asking: { busy: boolean; error?: string; traceId?: string };
  onAsk: () => void;
}) {
  const note = taskCheckNote(record);
  const actions = (
    <>
      <button type="button" className="btn btn-small" onClick={onAsk} disabled={asking.busy}>
        {asking.busy ? <Spinner label="Asking" /> : <Icon name="refresh" size={14} />}
        {note ? 'Ask the server again' : 'Ask the server now'}
      </button>
      {asking.traceId && <TraceButton traceId={asking.traceId} label="Trace of the ask" />}
    </>
  );
  const askedAt = note ? <> (asked {formatDateTime(note.at)})</> : null;
  const failedAsk = asking.error && (
    <span className="record-error" role="alert">
      {' '}
      {asking.error}
    </span>
  );
  if (note?.code === 'task_unknown_to_server')
    return (
      <Callout tone="warning" title={`The server no longer knows task ${taskId}`} actions={actions}>
        <span data-testid="task-note">
          The server ran this call as a task, and now answers that it does not know it — it may have restarted since
          {askedAt}. Whether the tool acted on the remote side is unknown: check there, then resolve it by hand. What
          the server said is in the trace of the ask.
        </span>
        {failedAsk}
      </Callout>
    );
  if (note)
    return (
      <Callout
        tone="warning"
        title={
          note.code === 'task_server_unavailable'
            ? `Task ${taskId}: the server could not be asked`
            : `Task ${taskId}: asking the server failed`
        }
        actions={actions}
      >
        <span data-testid="task-note">
          {note.message}
          {askedAt}. Until the server tells, whether the tool acted is unknown; you can also resolve it by hand.
        </span>
        {failedAsk}
      </Callout>
    );
  return (
    <Callout tone="info" title={`Server task ${taskId}: its end is not known yet`} actions={actions}>
      <span data-testid="task-note">
        The server ran this call as a task. The app asks the server how it ended at start and whenever the server
        becomes ready (and follows a task still running), then records the server&apos;s result or reason here.
      </span>
      {failedAsk}
    </Callout>
  );
}

/** Unknown: no result, and nothing runs the call; a cancelled call is an unknown one whose cause is known (it may have acted, and is resolved by hand the same way). */
function isUnknown(record: HistoryRecordView): boolean {
  return record.status === 'unknown' || record.status === 'cancelled';
}

/** Replay and Run again: which is running, and what the last one showed. */
function useRecordRun(record: HistoryRecordView) {
  const replayCall = useAppStore((s) => s.replayCall);
  const rerunCall = useAppStore((s) => s.rerunCall);
  const [running, setRunning] = useState<Action | undefined>(undefined);
  const [shown, setShown] = useState<Shown | undefined>(undefined);

  async function run(action: Action): Promise<void> {
    setRunning(action);
    setShown(undefined);
    try {
      const outcome = action === 'replay' ? await replayCall(record) : await rerunCall(record);
      setShown({ kind: action, outcome });
    } catch (error) {
      const described = describeFailure(error, action === 'replay' ? 'Could not replay' : 'The new call failed');
      const traceId = error instanceof BridgeError ? error.details?.traceId : undefined;
      setShown({
        kind: 'error',
        action,
        title: described.title,
        message: described.text,
        ...(traceId ? { traceId } : {}),
      });
    } finally {
      setRunning(undefined);
    }
  }

  return { running, shown, setShown, run };
}

/** Why a call has no result: running now, cancelled, or unknown (a task's can be asked of its server). */
function StatusNotes({
  record,
  asking,
  onAsk,
}: {
  record: HistoryRecordView;
  asking: { busy: boolean; error?: string; traceId?: string };
  onAsk: () => void;
}) {
  const runningNow = record.status === 'started';
  const cancelled = record.status === 'cancelled';
  const unknown = isUnknown(record);
  return (
    <>
      {runningNow && (
        <Callout tone="info" title="Running now">
          This call is running in this app. Its result is recorded when it finishes; to stop it, cancel it where it was
          started.
        </Callout>
      )}
      {cancelled && (
        <Callout tone="warning" title="Cancelled while it ran">
          This call was cancelled after it started — by its caller, or by MiniHarness when the agent was revoked or the
          server removed. The server was told to stop, but it may have acted already: check there, then resolve it by
          hand.
        </Callout>
      )}
      {unknown && !cancelled && record.taskId && (
        <TaskCallout record={record} taskId={record.taskId} asking={asking} onAsk={onAsk} />
      )}
      {unknown && !cancelled && !record.taskId && (
        <Callout tone="warning" title="Its result is unknown">
          {/* With a recorded error, that error is why (shown below): no guess at a timeout. */}
          {record.lastError
            ? 'This call started and then failed with the error below; no result was recorded and nothing runs it any more.'
            : 'This call started, but no result was recorded and nothing runs it any more — the server did not answer in time, the connection dropped, or the app stopped mid-call.'}{' '}
          Whether the tool did something on the remote side is unknown: check there, then resolve it by hand.
        </Callout>
      )}
    </>
  );
}

function ErrorAndResolution({ record }: { record: HistoryRecordView }) {
  return (
    <>
      {record.lastError && !taskCheckNote(record) && (
        <section className="card card-error" aria-labelledby="record-error-title">
          <h3 id="record-error-title" className="card-title">
            Last error
          </h3>
          <p className="record-error">
            {record.lastError.message}
            {record.lastError.code && <span className="chip">{record.lastError.code}</span>}
          </p>
          <p className="card-note">{formatDateTime(record.lastError.at)}</p>
        </section>
      )}

      {record.resolvedBy === 'manual' && (
        <section className="card" aria-labelledby="record-resolution-title">
          <h3 id="record-resolution-title" className="card-title">
            Resolved by hand
          </h3>
          <p>
            Marked <strong>{record.status === 'failed' ? 'failed' : 'completed'}</strong>{' '}
            {formatDateTime(record.updatedAt)}.
          </p>
          {record.resolutionNote ? (
            <blockquote className="resolution-note">{record.resolutionNote}</blockquote>
          ) : (
            <p className="muted">No note.</p>
          )}
        </section>
      )}
    </>
  );
}

function ArgumentsCard({
  record,
  loading,
  loadError,
}: {
  record: HistoryRecordView;
  loading: boolean;
  loadError: string | undefined;
}) {
  return (
    <section className="card" aria-labelledby="record-args-title">
      <h3 id="record-args-title" className="card-title">
        Arguments
      </h3>
      {record.args === undefined && record.preview?.args !== undefined ? (
        <PreviewBlock
          text={record.preview.args}
          bytes={record.preview.argsBytes}
          loading={loading}
          error={loadError}
          what="arguments"
        />
      ) : (
        <>
          {record.args && typeof record.args === 'object' && Object.keys(record.args).length === 0 ? (
            <p className="muted">No arguments.</p>
          ) : (
            <JsonTree value={record.args} openDepth={2} />
          )}
          <details className="raw-json">
            <summary>Raw JSON</summary>
            <pre className="code-block">{JSON.stringify(record.args, null, 2)}</pre>
          </details>
        </>
      )}
    </section>
  );
}

function ResultCard({
  record,
  loading,
  loadError,
}: {
  record: HistoryRecordView;
  loading: boolean;
  loadError: string | undefined;
}) {
  const runningNow = record.status === 'started';
  const unknown = isUnknown(record);
  return (
    <section className="card" aria-labelledby="record-result-title">
      <h3 id="record-result-title" className="card-title">
        Stored result
      </h3>
      {record.result ? (
        <>
          <ResultContent result={record.result} />
          <RecordApp
            record={record}
            result={record.result}
            testId="record-app"
            stored
            forCall={{ sessionId: record.sessionId, callId: record.callId }}
          />
        </>
      ) : record.preview?.result !== undefined ? (
        <PreviewBlock
          text={record.preview.result}
          bytes={record.preview.resultBytes ?? 0}
          loading={loading}
          error={loadError}
          what="result"
        />
      ) : (
        <p className="muted">
          {runningNow
            ? 'None yet — the call is running.'
            : unknown
              ? 'None — the result is unknown.'
              : 'None: the call failed.'}
        </p>
      )}
    </section>
  );
}

function IdsCard({ record }: { record: HistoryRecordView }) {
  return (
    <section className="card" aria-labelledby="record-ids-title">
      <h3 id="record-ids-title" className="card-title">
        Details
      </h3>
      <dl className="props">
        <dt>Call id</dt>
        <dd>
          <code data-testid="record-call-id">{record.callId}</code>
        </dd>
        <dt>Session</dt>
        <dd>
          <code>{record.sessionId}</code>
        </dd>
        <dt>User</dt>
        <dd>
          <code>{record.userId}</code>
        </dd>
        <dt>Created</dt>
        <dd>{formatDateTime(record.createdAt)}</dd>
        <dt>Last activity</dt>
        <dd>{formatDateTime(record.updatedAt)}</dd>
        <dt>Failed attempts</dt>
        <dd>{record.attempts}</dd>
      </dl>
    </section>
  );
}

/** History's "Ask the server now" for a call it ran as a task: busy, and why it failed when the record does not say. */
function useAskServer(record: HistoryRecordView) {
  const askTaskNow = useAppStore((s) => s.askTaskNow);
  const [asking, setAsking] = useState<{ busy: boolean; error?: string; traceId?: string }>({ busy: false });

  async function askServer(): Promise<void> {
    setAsking({ busy: true });
    try {
      await askTaskNow(record);
      setAsking({ busy: false });
    } catch (error) {
      const traceId = error instanceof BridgeError ? error.details?.traceId : undefined;
      // An ask that reached its end ("unavailable") changed the record's text: the record says why, not a line below it.
      const inRecord = error instanceof BridgeError && error.code === 'unavailable' && traceId !== undefined;
      setAsking({ busy: false, ...(inRecord ? {} : { error: messageOf(error) }), ...(traceId ? { traceId } : {}) });
    }
  }

  return { asking, askServer };
}

export function RecordDetail({ record: row }: { record: HistoryRecordView }) {
  const { record, loading, error: loadError } = useWholeRecord(row);
  const select = useAppStore((s) => s.selectHistoryRecord);
  const { running, shown, setShown, run } = useRecordRun(record);
  const [confirmRerun, setConfirmRerun] = useState(false);
  const [resolving, setResolving] = useState(false);
  const { asking, askServer } = useAskServer(record);
  const unknown = isUnknown(record);

  return (
    <section className="detail record-detail" aria-label={`Call ${record.toolName}`}>
      <button type="button" className="btn btn-ghost btn-small back-button" onClick={() => select(undefined)}>
        <Icon name="back" size={14} />
        All calls
      </button>
      <header className="detail-header">
        <div className="detail-title-row">
          <h2 className="detail-title">
            <code>{record.toolName}</code>
          </h2>
          <RecordStatusBadge record={record} />
          {record.resolvedBy === 'manual' && <ManualBadge />}
          <TraceLink traceId={record.traceId} />
        </div>
        <p className="detail-meta">
          <span>
            on <code>{record.serverId}</code>
          </span>
          <span aria-hidden="true">·</span>
          <span data-testid="record-caller">by {callerLabel(record.userId)}</span>
          <span aria-hidden="true">·</span>
          <span>started {formatDateTime(record.createdAt)}</span>
          {/* Every record the server ran as a task names it (not only one whose end is unknown). */}
          {record.taskId && (
            <>
              <span aria-hidden="true">·</span>
              <span data-testid="record-task">
                as task <code>{record.taskId}</code>
              </span>
            </>
          )}
        </p>
        <div className="detail-actions" role="group" aria-label="Call actions">
          {record.status === 'completed' && (
            <button type="button" className="btn btn-primary" onClick={() => void run('replay')} disabled={!!running}>
              {running === 'replay' ? <Spinner label="Replaying" /> : <Icon name="history" />}
              Replay
            </button>
          )}
          {unknown && (
            <button type="button" className="btn btn-primary" onClick={() => setResolving(true)} disabled={!!running}>
              <Icon name="edit" />
              Resolve by hand…
            </button>
          )}
          <button type="button" className="btn" onClick={() => setConfirmRerun(true)} disabled={!!running}>
            {running === 'rerun' ? <Spinner label="Running" /> : <Icon name="refresh" />}
            {running === 'rerun' ? 'Running…' : 'Run again as a new call'}
          </button>
        </div>
      </header>

      {running === 'rerun' && (
        <p className="status-line">Running as a new call — if it needs your approval, the approval dialog asks.</p>
      )}
      {shown && <OutcomePanel shown={shown} record={record} onDismiss={() => setShown(undefined)} />}

      <StatusNotes record={record} asking={asking} onAsk={() => void askServer()} />

      <ErrorAndResolution record={record} />

      <ArgumentsCard record={record} loading={loading} loadError={loadError} />

      <ResultCard record={record} loading={loading} loadError={loadError} />

      <IdsCard record={record} />

      {confirmRerun && (
        <ConfirmDialog
          title="Run this call again?"
          confirmLabel="Run again"
          onCancel={() => setConfirmRerun(false)}
          onConfirm={() => {
            setConfirmRerun(false);
            void run('rerun');
          }}
        >
          <p>
            <code>{record.toolName}</code> runs on <code>{record.serverId}</code> with the same arguments, as a{' '}
            <strong>new call</strong> with its own id — this is not a replay. Its side effects happen again.
          </p>
          <p className="confirm-more">
            It goes through permissions again; if the tool needs approval, you are asked again.
          </p>
        </ConfirmDialog>
      )}
      {resolving && <ResolveDialog record={record} onClose={() => setResolving(false)} />}
    </section>
  );
}
