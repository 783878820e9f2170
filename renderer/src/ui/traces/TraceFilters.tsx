/**
 * The filters above the trace list: tool (exact name, applied as you type), server, status,
 * session and caller (you or an agent). Each change reloads the first page.
 */
import type { TraceStatus } from '../../../../shared/traces.js';
import { serverIdOf, serverNameOf } from '../../lib/serverView.js';
import { EMPTY_TRACE_FILTERS } from '../../state/slices/tracesSlice.js';
import { useAppStore } from '../../state/useAppStore.js';
import { CallerFilter } from '../components/CallerFilter.js';
import { Icon } from '../components/Icon.js';
import { ToolNameFilter } from '../components/ToolNameFilter.js';
import { useSessionLabel } from '../components/useSessionLabel.js';
import { TRACE_STATUS_LABELS } from '../../lib/traceFormat.js';

const STATUSES = Object.keys(TRACE_STATUS_LABELS) as TraceStatus[];

export function TraceFilters() {
  const filters = useAppStore((s) => s.traceFilters);
  const setFilters = useAppStore((s) => s.setTraceFilters);
  const servers = useAppStore((s) => s.servers);
  const sessions = useAppStore((s) => s.historySessions);
  const traces = useAppStore((s) => s.traces);
  const sessionLabel = useSessionLabel();

  const toolNames = [...new Set(traces.map((t) => t.toolName))].sort();
  const serverIds = new Set(['local', ...servers.map(serverIdOf)]);
  const active = filters.toolName || filters.serverId || filters.status || filters.sessionId || filters.userId;

  return (
    <div className="filter-bar" role="search" aria-label="Filter traces">
      <ToolNameFilter
        value={filters.toolName}
        suggestions={toolNames}
        onApply={(toolName) => setFilters({ toolName })}
      />
      <label className="filter">
        <span className="filter-label">Server</span>
        <select
          className="input input-compact"
          value={filters.serverId}
          onChange={(e) => setFilters({ serverId: e.target.value })}
        >
          <option value="">Any server</option>
          <option value="local">Local tools</option>
          {servers
            .filter((v) => serverIdOf(v) !== 'local')
            .map((v) => (
              <option key={serverIdOf(v)} value={serverIdOf(v)}>
                {serverNameOf(v)}
              </option>
            ))}
          {filters.serverId && !serverIds.has(filters.serverId) && (
            <option value={filters.serverId}>{filters.serverId}</option>
          )}
        </select>
      </label>
      <label className="filter">
        <span className="filter-label">Status</span>
        <select
          className="input input-compact"
          value={filters.status}
          onChange={(e) => setFilters({ status: e.target.value as TraceStatus | '' })}
        >
          <option value="">Any status</option>
          {STATUSES.map((status) => (
            <option key={status} value={status}>
              {TRACE_STATUS_LABELS[status]}
            </option>
          ))}
        </select>
      </label>
      <label className="filter">
        <span className="filter-label">Session</span>
        <select
          className="input input-compact filter-session"
          value={filters.sessionId}
          onChange={(e) => setFilters({ sessionId: e.target.value })}
        >
          <option value="">All sessions</option>
          {sessions.map((session) => (
            <option key={session.sessionId} value={session.sessionId} title={session.sessionId}>
              {sessionLabel(session)}
            </option>
          ))}
          {filters.sessionId && !sessions.some((s) => s.sessionId === filters.sessionId) && (
            <option value={filters.sessionId} title={filters.sessionId}>
              {sessionLabel({ sessionId: filters.sessionId, current: false })}
            </option>
          )}
        </select>
      </label>
      <CallerFilter value={filters.userId} onChange={(userId) => setFilters({ userId })} />
      {active && (
        <button
          type="button"
          className="btn btn-small btn-ghost filter-clear"
          onClick={() => setFilters(EMPTY_TRACE_FILTERS)}
        >
          <Icon name="close" size={14} />
          Clear filters
        </button>
      )}
    </div>
  );
}
