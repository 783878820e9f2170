/**
 * The Agents view: MiniHarness as one MCP server for agents. The endpoint and its state, the
 * registered agents (connected clients of both eras, calls, what each sees), "Add agent" with its one-time token,
 * and the names agents see for the tools. Kept current by 'agents.changed'.
 */
import { useEffect, useState } from 'react';
import { countOf } from '../../lib/plural.js';
import { useAppStore } from '../../state/useAppStore.js';
import { Callout } from '../components/Callout.js';
import { EmptyState } from '../components/EmptyState.js';
import { Icon } from '../components/Icon.js';
import { Spinner } from '../components/Spinner.js';
import { ViewHeader } from '../components/ViewHeader.js';
import { AddAgentDialog } from './AddAgentDialog.js';
import { AgentCard } from './AgentCard.js';
import { GatewayCard } from './GatewayCard.js';
import { ToolNamesCard } from './ToolNamesCard.js';

export function AgentsView() {
  const view = useAppStore((s) => s.agentsView);
  const load = useAppStore((s) => s.agentsLoad);
  const error = useAppStore((s) => s.agentsError);
  const reload = useAppStore((s) => s.loadAgents);
  const [adding, setAdding] = useState(false);

  useEffect(() => {
    void reload();
  }, [reload]);

  const addButton = (
    <button type="button" className="btn btn-primary" onClick={() => setAdding(true)} disabled={!view}>
      <Icon name="plus" />
      Add agent
    </button>
  );

  let body;
  if (!view && load === 'error') {
    body = (
      <Callout
        tone="error"
        title="Could not load the agents"
        actions={
          <button type="button" className="btn btn-small" onClick={() => void reload()}>
            Try again
          </button>
        }
      >
        {error}
      </Callout>
    );
  } else if (!view) {
    body = (
      <div className="loading-block">
        <Spinner label="Loading agents" /> Loading agents…
      </div>
    );
  } else {
    const live = view.agents.reduce((n, a) => n + a.sessions.length + a.recentClients.length, 0);
    body = (
      <>
        <GatewayCard gateway={view.gateway} />
        {view.agents.length === 0 ? (
          <EmptyState icon="agents" title="No agents yet" action={addButton}>
            Add an agent to get its token and the configuration for Claude Desktop, VS Code, Cursor or Claude Code. Its
            calls then ask you here, and show in History and Traces.
          </EmptyState>
        ) : (
          <ul className="agent-list" aria-label={`Agents, ${countOf(live, 'connected client', 'connected clients')}`}>
            {view.agents.map((agent) => (
              <AgentCard key={agent.id} agent={agent} gateway={view.gateway} />
            ))}
          </ul>
        )}
        <ToolNamesCard tools={view.tools} />
      </>
    );
  }

  return (
    <section className="view" aria-labelledby="view-title">
      <ViewHeader
        title="Agents"
        subtitle="MCP clients that reach your tools through MiniHarness, where every call is checked, approved and recorded"
        actions={addButton}
      />
      <div className="view-body view-body-narrow agents-body">{body}</div>
      {adding && <AddAgentDialog onClose={() => setAdding(false)} />}
    </section>
  );
}
