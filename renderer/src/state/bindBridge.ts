/**
 * Feeds main's events and the connection state into the store. On every (re)connection the
 * store reloads what it shows, because events sent while the link was down are gone; when the
 * session is refused, everything main said is forgotten.
 */
import type { BridgeClient, ConnectionState } from '../bridge/index.js';
import { serverIdOf } from '../lib/serverView.js';
import type { AppStoreApi } from './store.js';

export function bindBridge(client: BridgeClient, store: AppStoreApi): () => void {
  const state = () => store.getState();

  function refreshAll(): void {
    void state().loadInfo();
    void state().loadServers();
    const selected = state().selectedServerId;
    if (selected) void state().loadDetail(selected);
    for (const id of Object.keys(state().logs)) void state().loadLog(id);
    void state().loadTools();
    state().reloadServerFeatures();
    void state().loadApprovals();
    void state().loadServerRequests();
    state().refreshPermissions();
    // The Agents view, and the agents' names for the caller filters of History and Traces.
    void state().loadAgents();
    // The person's models and the agent runs (README “Run your own model”).
    void state().loadModels();
    void state().loadRuns();
    // Traces and History reload what they show; the session counts feed the sidebar's attention mark.
    if (state().tracesLoad !== 'idle') void state().loadTraces();
    for (const id of Object.keys(state().traceDetails)) void state().loadTraceDetail(id);
    // Sessions first: after a restart the current session may be another one, and History
    // follows it before it reloads its records.
    const historyShown = state().historyLoad !== 'idle';
    void state()
      .loadSessions()
      .then(() => {
        if (historyShown) void state().loadHistory();
      });
  }

  function onConnection(connection: ConnectionState): void {
    state().setConnection(connection);
    if (connection.status === 'open') refreshAll();
    if (connection.status === 'unauthorized') {
      state().clearServers();
      state().clearTools();
      state().clearApprovals();
      state().clearServerRequests();
      state().clearPermissions();
      state().clearTraces();
      state().clearHistory();
      state().clearServerFeatures();
      state().clearAgents();
      store.setState({ info: undefined }, false, 'app/unauthorized');
    }
  }

  const unsubscribers = [
    client.on('servers.changed', ({ servers }) => {
      state().applyServerList(servers);
      state().pruneServerFeatures(servers.map(serverIdOf));
      state().refreshPermissions(); // server names and trust
    }),
    client.on('server.status', (event) => state().applyStatus(event)),
    client.on('server.log', (event) => state().appendLog(event)),
    // Browser mode: the host dropped events while this page was not reading. Lost log lines are
    // marked in the log; anything else means the page's state may be stale, so it reloads.
    client.on('bridge.dropped', ({ event, serverId, count }) => {
      if (event === 'server.log' && serverId !== undefined) state().appendDroppedLines(serverId, count);
      else refreshAll();
    }),
    client.on('tools.changed', (payload) => {
      const selected = state().selectedServerId;
      if (selected && state().details[selected]) void state().loadDetail(selected);
      state().applyTools(payload);
      state().refreshPermissions();
    }),
    client.on('call.progress', (event) => state().applyProgress(event)),
    client.on('run.event', (event) => state().applyRunEvent(event)),
    client.on('runs.changed', (event) => state().applyRunsChanged(event)),
    client.on('call.task', (event) => state().applyTask(event)),
    client.on('resources.changed', ({ serverId }) => state().applyResourcesChanged(serverId)),
    client.on('resources.updated', (event) => state().applyResourceUpdated(event)),
    client.on('prompts.changed', ({ serverId }) => state().applyPromptsChanged(serverId)),
    // Browser mode: a sign-in page to open. A blocked pop-up is no loss: the server's
    // actions offer the same page as a link while the sign-in waits.
    client.on('oauth.authorize', ({ url }) => {
      if (/^https?:\/\//i.test(url)) window.open(url, '_blank', 'noopener,noreferrer');
    }),
    client.on('approval.requested', (view) => state().applyApprovalRequested(view)),
    client.on('approval.closed', (event) => state().applyApprovalClosed(event)),
    client.on('serverRequest.opened', (view) => state().applyServerRequestOpened(view)),
    client.on('serverRequest.closed', (event) => state().applyServerRequestClosed(event)),
    // Desktop app: the OS notification of a request was clicked (the window is already in front).
    client.on('approval.show', ({ requestId }) => state().revealApproval(requestId)),
    client.on('settings.changed', ({ settings }) => state().applySettings(settings)),
    client.on('permissions.changed', () => state().refreshPermissions()),
    client.on('permissions.changed', () => state().refreshHostRules()),
    client.on('app.warnings', ({ warnings }) => state().applyWarnings(warnings)),
    client.on('agents.changed', (view) => state().applyAgents(view)),
    client.on('trace.changed', ({ trace }) => {
      state().applyTraceChanged(trace);
      state().noteTraceActivity(trace);
    }),
    client.connection.subscribe(onConnection),
  ];
  onConnection(client.connection.get());

  return () => {
    for (const unsubscribe of unsubscribers) unsubscribe();
  };
}
