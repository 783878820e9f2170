/**
 * The History view: every recorded call of a session (the checkpoint store), newest activity
 * first, in a virtualized list; the selected call's details and actions beside it.
 */
import { useEffect } from 'react';
import { useAppStore } from '../../state/useAppStore.js';
import { Callout } from '../components/Callout.js';
import { EmptyState } from '../components/EmptyState.js';
import { Icon } from '../components/Icon.js';
import { Spinner } from '../components/Spinner.js';
import { ViewHeader } from '../components/ViewHeader.js';
import { HistoryFilters } from './HistoryFilters.js';
import { HistoryTable } from './HistoryTable.js';
import { RecordDetail } from './RecordDetail.js';
import { formatCount } from './SessionPicker.js';
import { recordKey } from '../../state/slices/historySlice.js';
import { rememberHistoryScope } from '../../state/historyScope.js';

function AttentionCallout() {
  const session = useAppStore((s) =>
    s.historyAllSessions ? undefined : s.historySessions.find((x) => x.sessionId === s.historySessionId),
  );
  const status = useAppStore((s) => s.historyFilters.status);
  const setFilters = useAppStore((s) => s.setHistoryFilters);
  if (!session || session.started === 0 || status === 'started') return null;
  return (
    <div className="attention-bar" role="status">
      <Icon name="warning" size={16} />
      <p className="attention-text">
        <strong>{formatCount(session.started, 'call needs', 'calls need')} attention</strong> — running, or{' '}
        {session.started === 1 ? 'its' : 'their'} result is unknown. Check the remote side, then resolve by hand.
      </p>
      <button type="button" className="btn btn-small" onClick={() => setFilters({ status: 'started' })}>
        Show {session.started === 1 ? 'it' : 'them'}
      </button>
    </div>
  );
}

/**
 * One session is shown while others hold calls (an agent run's, an agent's, an earlier app
 * session's): say so, and offer "All sessions" (remembered for the next time History opens).
 */
function OtherSessionsOffer() {
  const others = useAppStore((s) =>
    s.historyAllSessions
      ? 0
      : s.historySessions.filter((x) => x.sessionId !== s.historySessionId).reduce((n, x) => n + x.count, 0),
  );
  const showAll = useAppStore((s) => s.showAllHistorySessions);
  if (others === 0) return null;
  return (
    <div className="attention-bar other-sessions-bar" role="status">
      <Icon name="info" size={16} />
      <p className="attention-text">
        {formatCount(others, 'call is', 'calls are')} in other sessions — agent runs, agents, earlier app sessions — and
        not shown here.
      </p>
      <button
        type="button"
        className="btn btn-small"
        onClick={() => {
          rememberHistoryScope('all');
          showAll();
        }}
      >
        Show all sessions
      </button>
    </div>
  );
}

/** No session is shown yet: the sessions are loading, or could not be loaded. */
function SessionsPending() {
  const sessionsLoad = useAppStore((s) => s.sessionsLoad);
  const sessionsError = useAppStore((s) => s.sessionsError);
  const openHistory = useAppStore((s) => s.openHistory);
  if (sessionsLoad === 'error') {
    return (
      <Callout
        tone="error"
        title="Could not load the sessions"
        actions={
          <button type="button" className="btn btn-small" onClick={() => void openHistory()}>
            Try again
          </button>
        }
      >
        {sessionsError}
      </Callout>
    );
  }
  return (
    <div className="loading-block">
      <Spinner label="Loading sessions" /> Loading sessions…
    </div>
  );
}

function Body() {
  const load = useAppStore((s) => s.historyLoad);
  const error = useAppStore((s) => s.historyError);
  const count = useAppStore((s) => s.historyRecords.length);
  const filtered = useAppStore(
    (s) => s.historyFilters.status !== '' || s.historyFilters.toolName !== '' || s.historyFilters.userId !== '',
  );
  const allSessions = useAppStore((s) => s.historyAllSessions);
  const hasSession = useAppStore((s) => s.historySessionId !== undefined || s.historyAllSessions);
  const record = useAppStore((s) =>
    s.selectedRecordKey ? s.historyRecords.find((r) => recordKey(r) === s.selectedRecordKey) : undefined,
  );
  const selectedCallId = useAppStore((s) => s.selectedRecordKey);
  const loadHistory = useAppStore((s) => s.loadHistory);
  const navigate = useAppStore((s) => s.navigate);

  if (!hasSession) return <SessionsPending />;

  let list;
  if (load === 'error' && count === 0) {
    list = (
      <Callout
        tone="error"
        title="Could not load the calls"
        actions={
          <button type="button" className="btn btn-small" onClick={() => void loadHistory()}>
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
        <Spinner label="Loading calls" /> Loading calls…
      </div>
    );
  } else if (count === 0) {
    list = filtered ? (
      <EmptyState icon="history" title="No call matches">
        No recorded call {allSessions ? 'in any session' : 'of this session'} matches the filters.
      </EmptyState>
    ) : (
      <EmptyState
        icon="history"
        title="No calls in this session"
        action={
          <button type="button" className="btn btn-primary" onClick={() => navigate('tools')}>
            <Icon name="tools" />
            Go to Tools
          </button>
        }
      >
        Each tool call that reaches its checkpoint is recorded here, so it can be replayed without running again. Pick
        another session above, or run a tool.
      </EmptyState>
    );
  } else {
    list = <HistoryTable />;
  }

  return (
    <div className={`master-detail history-layout ${selectedCallId ? 'has-selection' : ''}`}>
      <div className="history-list-pane">{list}</div>
      {record ? (
        <RecordDetail key={`${record.sessionId}/${record.callId}`} record={record} />
      ) : (
        <div className="detail-placeholder">
          <EmptyState icon="history" title={selectedCallId ? 'Call not loaded' : 'Select a call'}>
            {selectedCallId
              ? 'This call is further down the list, or the filters hide it. Scroll down or clear the filters.'
              : 'Its arguments, result and errors appear here, with Replay and Run again.'}
          </EmptyState>
        </div>
      )}
    </div>
  );
}

export function HistoryView() {
  const openHistory = useAppStore((s) => s.openHistory);
  const session = useAppStore((s) =>
    s.historyAllSessions ? undefined : s.historySessions.find((x) => x.sessionId === s.historySessionId),
  );

  useEffect(() => {
    void openHistory();
  }, [openHistory]);

  return (
    <section className="view view-fill" aria-labelledby="view-title">
      <ViewHeader
        title="History"
        subtitle={
          session
            ? `${formatCount(session.count, 'recorded call', 'recorded calls')} in this session · replay one without running it again`
            : 'Recorded calls, to inspect, replay or resolve'
        }
      />
      <div className="view-body view-body-fill history-body">
        <HistoryFilters />
        <AttentionCallout />
        <OtherSessionsOffer />
        <Body />
      </div>
    </section>
  );
}
