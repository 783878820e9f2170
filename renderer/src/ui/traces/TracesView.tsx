/**
 * The Traces view: filters, the list of traces (newest first, live), and the selected trace's
 * timeline beside it. A trace opened from elsewhere (`openTrace`) is shown even when the list's
 * filters hide it.
 */
import { useEffect } from 'react';
import { useAppStore } from '../../state/useAppStore.js';
import { Callout } from '../components/Callout.js';
import { EmptyState } from '../components/EmptyState.js';
import { Icon } from '../components/Icon.js';
import { Spinner } from '../components/Spinner.js';
import { ViewHeader } from '../components/ViewHeader.js';
import { TraceDetail } from './TraceDetail.js';
import { TraceFilters } from './TraceFilters.js';
import { TraceList } from './TraceList.js';

export function TracesView() {
  const load = useAppStore((s) => s.tracesLoad);
  const error = useAppStore((s) => s.tracesError);
  const count = useAppStore((s) => s.traces.length);
  const filtered = useAppStore((s) => Object.values(s.traceFilters).some(Boolean));
  const selected = useAppStore((s) => s.selectedTraceId);
  const loadTraces = useAppStore((s) => s.loadTraces);
  const loadSessions = useAppStore((s) => s.loadSessions);
  const navigate = useAppStore((s) => s.navigate);

  useEffect(() => {
    void loadTraces();
    void loadSessions();
  }, [loadTraces, loadSessions]);

  let list;
  if (load === 'error' && count === 0) {
    list = (
      <Callout
        tone="error"
        title="Could not load the traces"
        actions={
          <button type="button" className="btn btn-small" onClick={() => void loadTraces()}>
            Try again
          </button>
        }
      >
        {error}
      </Callout>
    );
  } else if (load !== 'ready' && count === 0) {
    list = (
      <div className="loading-block">
        <Spinner label="Loading traces" /> Loading traces…
      </div>
    );
  } else if (count === 0) {
    list = filtered ? (
      <EmptyState icon="traces" title="No trace matches">
        No call matches these filters. Clear a filter to see more.
      </EmptyState>
    ) : (
      <EmptyState
        icon="traces"
        title="No traces yet"
        action={
          <button type="button" className="btn btn-primary" onClick={() => navigate('tools')}>
            <Icon name="tools" />
            Go to Tools
          </button>
        }
      >
        Every tool call leaves a trace: the permission decision, approvals, each attempt and how it ended. Run a tool
        and it appears here.
      </EmptyState>
    );
  } else {
    list = <TraceList />;
  }

  return (
    <section className="view view-fill" aria-labelledby="view-title">
      <ViewHeader
        title="Traces"
        subtitle="Each tool call as a timeline: decision, approval, attempts, result"
        actions={
          <button type="button" className="btn" onClick={() => void loadTraces()} disabled={load === 'loading'}>
            {load === 'loading' && count > 0 ? <Spinner label="Refreshing" /> : <Icon name="refresh" />}
            Refresh
          </button>
        }
      />
      <div className="view-body view-body-fill">
        <TraceFilters />
        <div className={`master-detail traces-layout ${selected ? 'has-selection' : ''}`}>
          <div className="trace-list-pane">{list}</div>
          {selected ? (
            <TraceDetail key={selected} traceId={selected} />
          ) : (
            <div className="detail-placeholder">
              <EmptyState icon="traces" title="Select a trace">
                Its timeline appears here: each step with its time, duration and data.
              </EmptyState>
            </div>
          )}
        </div>
      </div>
    </section>
  );
}
