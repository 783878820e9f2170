/**
 * The Tools view: every tool of every server plus the local ones, searchable and filterable by
 * server, beside the call panel of the selected tool.
 */
import { countOf } from '../../lib/plural.js';
import { useEffect, useMemo, useState } from 'react';
import type { ToolView } from '../../../../shared/contract.js';
import { serverIdOf, serverNameOf } from '../../lib/serverView.js';
import { toolKeyOf } from '../../state/slices/toolsSlice.js';
import { useAppStore } from '../../state/useAppStore.js';
import { Callout } from '../components/Callout.js';
import { EmptyState } from '../components/EmptyState.js';
import { Spinner } from '../components/Spinner.js';
import { ViewHeader } from '../components/ViewHeader.js';
import { LOCAL_SERVER_ID } from '../components/serverLabel.js';
import { ToolCallPanel } from './ToolCallPanel.js';
import type { ToolGroup } from '../components/ToolList.js';
import { ToolList } from '../components/ToolList.js';

function matches(tool: ToolView, needle: string): boolean {
  if (!needle) return true;
  return `${tool.name} ${tool.title ?? ''} ${tool.description ?? ''} ${tool.serverId}`.toLowerCase().includes(needle);
}

function Subtitle({ tools }: { tools: ToolView[] }) {
  const local = tools.filter((t) => t.serverId === LOCAL_SERVER_ID).length;
  const servers = new Set(tools.filter((t) => t.serverId !== LOCAL_SERVER_ID).map((t) => t.serverId)).size;
  const conflicts = tools.filter((t) => t.shadowedBy).length;
  return (
    <>
      {countOf(tools.length - local, 'tool', 'tools')} from {countOf(servers, 'server', 'servers')} · {local} local
      {conflicts > 0 && <span className="subtitle-warning"> · {conflicts} shadowed by a name conflict</span>}
    </>
  );
}

/** Servers that are enabled but not ready: their tools are missing from the list. */
function NotConnectedNote() {
  const servers = useAppStore((s) => s.servers);
  const navigate = useAppStore((s) => s.navigate);
  const missing = servers.filter((v) => v.status.state !== 'ready' && v.status.state !== 'disabled');
  if (missing.length === 0) return null;
  return (
    <p className="tools-note">
      {missing.length === 1 ? `${serverNameOf(missing[0]!)} is` : `${missing.length} servers are`} not connected; their
      tools appear once connected.{' '}
      <button type="button" className="btn btn-small btn-ghost" onClick={() => navigate('servers')}>
        Open Servers
      </button>
    </p>
  );
}

/** The tools that match, by server in the servers' order (Local last), each server's by name. */
function groupTools(tools: ToolView[], needle: string, serverFilter: string, order: string[]): ToolGroup[] {
  const byServer = new Map<string, ToolView[]>();
  for (const tool of tools) {
    if (serverFilter !== 'all' && tool.serverId !== serverFilter) continue;
    if (!matches(tool, needle)) continue;
    const list = byServer.get(tool.serverId) ?? [];
    list.push(tool);
    byServer.set(tool.serverId, list);
  }
  const rank = (id: string) => {
    const index = order.indexOf(id);
    return index < 0 ? order.length - 1 : index; // unknown ids just before Local
  };
  return [...byServer.entries()]
    .sort(([a], [b]) => rank(a) - rank(b) || a.localeCompare(b))
    .map(([serverId, list]) => ({ serverId, tools: list.sort((a, b) => a.name.localeCompare(b.name)) }));
}

function ToolsToolbar({
  query,
  onQuery,
  serverFilter,
  onServerFilter,
  serverOptions,
}: {
  query: string;
  onQuery: (query: string) => void;
  serverFilter: string;
  onServerFilter: (serverId: string) => void;
  serverOptions: Array<{ id: string; label: string }>;
}) {
  return (
    <div className="tools-toolbar">
      <input
        type="search"
        className="input"
        placeholder="Search tools"
        aria-label="Search tools"
        value={query}
        onChange={(e) => onQuery(e.target.value)}
      />
      <select
        className="input input-compact tools-server-filter"
        aria-label="Server"
        value={serverFilter}
        onChange={(e) => onServerFilter(e.target.value)}
      >
        <option value="all">All servers</option>
        {serverOptions.map((option) => (
          <option key={option.id} value={option.id}>
            {option.label}
          </option>
        ))}
      </select>
    </div>
  );
}

export function ToolsView() {
  const tools = useAppStore((s) => s.tools);
  const load = useAppStore((s) => s.toolsLoad);
  const error = useAppStore((s) => s.toolsError);
  const servers = useAppStore((s) => s.servers);
  const selectedKey = useAppStore((s) => s.selectedToolKey);
  const selectTool = useAppStore((s) => s.selectTool);
  const loadTools = useAppStore((s) => s.loadTools);
  const loadPermissions = useAppStore((s) => s.loadPermissions);
  const [query, setQuery] = useState('');
  const [serverFilter, setServerFilter] = useState('all');

  // The call panel shows each tool's permission level.
  useEffect(() => {
    void loadPermissions();
  }, [loadPermissions]);

  const order = useMemo(() => [...servers.map(serverIdOf), LOCAL_SERVER_ID], [servers]);
  const groups = useMemo<ToolGroup[]>(
    () => groupTools(tools, query.trim().toLowerCase(), serverFilter, order),
    [tools, query, serverFilter, order],
  );

  const serverOptions = useMemo(() => {
    const ids = new Set(tools.map((t) => t.serverId));
    const names = new Map(servers.map((v) => [serverIdOf(v), serverNameOf(v)]));
    return order
      .filter((id) => ids.has(id))
      .map((id) => ({ id, label: id === LOCAL_SERVER_ID ? 'Local' : (names.get(id) ?? id) }));
  }, [tools, order, servers]);

  const selected = selectedKey ? tools.find((t) => toolKeyOf(t) === selectedKey) : undefined;
  const shown = groups.reduce((n, g) => n + g.tools.length, 0);

  let body;
  if (load === 'error' && tools.length === 0) {
    body = (
      <Callout
        tone="error"
        title="Could not load the tools"
        actions={
          <button type="button" className="btn btn-small" onClick={() => void loadTools()}>
            Try again
          </button>
        }
      >
        {error}
      </Callout>
    );
  } else if (load !== 'ready' && tools.length === 0) {
    body = (
      <div className="loading-block">
        <Spinner label="Loading tools" /> Loading tools…
      </div>
    );
  } else {
    body = (
      <div className={`tools-layout ${selectedKey ? 'has-selection' : ''}`}>
        <div className="tools-pane">
          <ToolsToolbar
            query={query}
            onQuery={setQuery}
            serverFilter={serverFilter}
            onServerFilter={setServerFilter}
            serverOptions={serverOptions}
          />
          <nav className="tools-scroller" aria-label="Tool list">
            {shown === 0 ? (
              <p className="muted tools-empty">{tools.length === 0 ? 'No tools yet.' : 'No tool matches.'}</p>
            ) : (
              <ToolList groups={groups} />
            )}
            <NotConnectedNote />
          </nav>
        </div>
        {selected ? (
          <div className="tools-detail">
            <button type="button" className="btn btn-ghost btn-small back-button" onClick={() => selectTool(undefined)}>
              All tools
            </button>
            <ToolCallPanel key={selectedKey} tool={selected} />
          </div>
        ) : (
          <div className="tools-detail tools-placeholder">
            <EmptyState icon="tools" title={selectedKey ? 'This tool is no longer offered' : 'Select a tool'}>
              {selectedKey
                ? 'Its server disconnected or stopped offering it. Pick another tool, or reconnect the server.'
                : 'Its description, a form for its arguments and the result of a call appear here. Tools that change things ask for your approval first.'}
            </EmptyState>
          </div>
        )}
      </div>
    );
  }

  return (
    <section className="view view-fill" aria-labelledby="view-title">
      <ViewHeader title="Tools" subtitle={<Subtitle tools={tools} />} />
      <div className="view-body view-body-fill">{body}</div>
    </section>
  );
}
