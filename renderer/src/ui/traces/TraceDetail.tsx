/**
 * One trace: what was called where and by whom, how it ended, its timeline, and "Export JSON"
 * (the self-describing `miniharness-trace` file). Loads by id, so a trace outside the filtered
 * list (opened from Tools or History) shows as well.
 */
import { useEffect, useState } from 'react';
import type { ReactNode } from 'react';
import { messageOf } from '../../bridge/index.js';
import { formatDateTime, formatDuration } from '../../lib/format.js';
import { useAppStore } from '../../state/useAppStore.js';
import { Callout } from '../components/Callout.js';
import { Icon } from '../components/Icon.js';
import { Spinner } from '../components/Spinner.js';
import { useSessionLabel } from '../components/useSessionLabel.js';
import { downloadText, safeFileName } from './download.js';
import { TraceStatusBadge } from './TraceStatusBadge.js';
import { TraceTimeline } from './TraceTimeline.js';
import { errorText } from '../../lib/traceFormat.js';
import type { TraceSummary } from '../../../../shared/traces.js';

/** Why the call did not end with a result: not run, interrupted, cancelled or failed. */
function TraceFailure({ trace, error }: { trace: TraceSummary; error: NonNullable<TraceSummary['error']> }) {
  return (
    <Callout
      tone={trace.status === 'interrupted' || trace.status === 'cancelled' ? 'warning' : 'error'}
      title={
        trace.status === 'denied'
          ? 'Not run'
          : trace.status === 'interrupted'
            ? 'Interrupted — the app stopped before the call finished'
            : trace.status === 'cancelled'
              ? 'Cancelled'
              : 'The call failed'
      }
    >
      {errorText(error)}
    </Callout>
  );
}

function TraceIdentifiers({ trace }: { trace: TraceSummary }) {
  const currentSession = useAppStore((s) => s.currentSessionId);
  const sessionLabel = useSessionLabel();
  return (
    <section className="card" aria-labelledby="trace-ids-title">
      <h3 id="trace-ids-title" className="card-title">
        Identifiers
      </h3>
      <dl className="props">
        <dt>Call id</dt>
        <dd>
          <code>{trace.callId}</code>
        </dd>
        <dt>Session</dt>
        <dd>
          {sessionLabel({ sessionId: trace.sessionId, current: trace.sessionId === currentSession })}{' '}
          <code className="muted">{trace.sessionId}</code>
        </dd>
        <dt>User</dt>
        <dd>
          <code>{trace.userId}</code>
        </dd>
        <dt>Trace id</dt>
        <dd>
          <code>{trace.traceId}</code>
        </dd>
        <ExportedTrace traceId={trace.traceId} />
      </dl>
    </section>
  );
}

/** The trace is loading, or could not be loaded (with Try again). */
function TraceNotLoaded({ back, error, onRetry }: { back: ReactNode; error: string | undefined; onRetry: () => void }) {
  return (
    <section className="detail" aria-label="Trace">
      {back}
      {error ? (
        <Callout
          tone="error"
          title="Could not load this trace"
          actions={
            <button type="button" className="btn btn-small" onClick={onRetry}>
              Try again
            </button>
          }
        >
          {error}
        </Callout>
      ) : (
        <div className="loading-block">
          <Spinner label="Loading trace" /> Loading trace…
        </div>
      )}
    </section>
  );
}

export function TraceDetail({ traceId }: { traceId: string }) {
  const entry = useAppStore((s) => s.traceDetails[traceId]);
  const load = useAppStore((s) => s.loadTraceDetail);
  const exportTrace = useAppStore((s) => s.exportTrace);
  const select = useAppStore((s) => s.selectTrace);
  const openHistoryRecord = useAppStore((s) => s.openHistoryRecord);
  const notify = useAppStore((s) => s.notify);
  const [exporting, setExporting] = useState(false);

  useEffect(() => {
    void load(traceId);
  }, [traceId, load]);

  async function onExport(): Promise<void> {
    setExporting(true);
    try {
      const data = await exportTrace(traceId);
      downloadText(safeFileName(`trace-${data.trace.toolName}-${traceId}.json`), `${JSON.stringify(data, null, 2)}\n`);
      notify('success', 'Trace exported as JSON.');
    } catch (error) {
      notify('error', `Could not export the trace: ${messageOf(error)}`);
    } finally {
      setExporting(false);
    }
  }

  const data = entry?.data;
  const back = (
    <button type="button" className="btn btn-ghost btn-small back-button" onClick={() => select(undefined)}>
      <Icon name="back" size={14} />
      All traces
    </button>
  );

  if (!data) return <TraceNotLoaded back={back} error={entry?.error} onRetry={() => void load(traceId)} />;

  const { trace, events } = data;
  const recorded = events.some(
    (e) => e.type === 'claim' && (e.data.outcome === 'owner' || e.data.outcome === 'replay'),
  );
  return (
    <section className="detail trace-detail" aria-label={`Trace of ${trace.toolName}`}>
      {back}
      <header className="detail-header">
        <div className="detail-title-row">
          <h2 className="detail-title">
            <code>{trace.toolName}</code>
          </h2>
          <TraceStatusBadge status={trace.status} />
          {entry.loading && <Spinner label="Refreshing" />}
        </div>
        <p className="detail-meta">
          <span>
            on <code>{trace.serverId}</code>
          </span>
          <span aria-hidden="true">·</span>
          <span>{formatDateTime(trace.startedAt)}</span>
          <span aria-hidden="true">·</span>
          <span>{trace.durationMs !== undefined ? `took ${formatDuration(trace.durationMs)}` : 'still running'}</span>
        </p>
        <div className="detail-actions">
          <button type="button" className="btn" onClick={() => void onExport()} disabled={exporting}>
            {exporting ? <Spinner label="Exporting" /> : <Icon name="down" />}
            Export JSON
          </button>
          {recorded && (
            <button
              type="button"
              className="btn btn-ghost"
              onClick={() => openHistoryRecord(trace.sessionId, trace.callId)}
            >
              <Icon name="history" />
              Open in History
            </button>
          )}
        </div>
      </header>
      {trace.error && <TraceFailure trace={trace} error={trace.error} />}
      {trace.status === 'replayed' && (
        <Callout tone="info" title="Replayed — nothing was executed">
          The stored result of the completed call was returned; the tool did not run again.
        </Callout>
      )}
      <section className="card" aria-labelledby="trace-timeline-title">
        <h3 id="trace-timeline-title" className="card-title">
          Timeline
        </h3>
        <TraceTimeline startedAt={trace.startedAt} events={events} />
      </section>
      <TraceIdentifiers trace={trace} />
    </section>
  );
}

/** The OpenTelemetry trace id this call was exported under (Settings → Observability), linked to the viewer when one is set. */
function ExportedTrace({ traceId }: { traceId: string }) {
  const traceLink = useAppStore((s) => s.traceLink);
  const [link, setLink] = useState<{ externalTraceId?: string; url?: string }>({});
  useEffect(() => {
    let current = true;
    traceLink(traceId).then(
      (found) => current && setLink(found),
      () => undefined,
    );
    return () => {
      current = false;
    };
  }, [traceId, traceLink]);
  if (!link.externalTraceId) return null;
  return (
    <>
      <dt>Exported trace</dt>
      <dd>
        {link.url ? (
          <a href={link.url} target="_blank" rel="noreferrer">
            <code>{link.externalTraceId}</code>
          </a>
        ) : (
          <code>{link.externalTraceId}</code>
        )}
      </dd>
    </>
  );
}
