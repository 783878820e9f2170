/**
 * "Connect an agent": the exact configuration Claude Desktop, VS Code, Cursor and Claude Code
 * need to reach the gateway, with a Copy button. Right after an agent is created the text holds
 * its real token, and "Add to …" writes it into the application's config file; later only a
 * placeholder, because the app keeps no copy of the token.
 */
import { useState } from 'react';
import type { AgentClient } from '../../../../shared/agentConfigs.js';
import { AGENT_CLIENTS, agentConfig } from '../../../../shared/agentConfigs.js';
import type { GatewayStatus } from '../../../../shared/agents.js';
import { Dialog } from '../components/Dialog.js';
import { Tabs } from '../components/Tabs.js';
import { CopyButton } from '../components/CopyButton.js';
import type { ClientWriteState } from './AddToClient.js';
import { AddToClient } from './AddToClient.js';

/** Stands in for the token once it is no longer known. */
const TOKEN_PLACEHOLDER = '<paste the token>';

const CLIENT_LABELS: Record<AgentClient, string> = {
  'claude-desktop': 'Claude Desktop',
  vscode: 'VS Code',
  cursor: 'Cursor',
  'claude-code': 'Claude Code',
};

export function ConnectAgent({
  agentId,
  agentName,
  token,
  gateway,
}: {
  /** With the token: "Add to …" is offered. */
  agentId?: string;
  agentName: string;
  token: string | undefined;
  gateway: GatewayStatus;
}) {
  const [client, setClient] = useState<AgentClient>('claude-desktop');
  const [writes, setWrites] = useState<Partial<Record<AgentClient, ClientWriteState>>>({});
  const config = agentConfig(client, {
    agentName,
    token: token ?? TOKEN_PLACEHOLDER,
    url: gateway.url,
    stdio: gateway.stdio,
  });
  return (
    <section className="connect-agent" aria-label={`Connect ${agentName}`}>
      {token === undefined && (
        <p className="card-note">
          Replace <code>{TOKEN_PLACEHOLDER}</code> with the token shown when this agent was created. The app keeps no
          copy of it; if it is lost, revoke this agent and add a new one. For the same reason, “Add to …” (writing this
          into the application’s own file) is offered only right after an agent is added.
        </p>
      )}
      <Tabs
        label="Agent application"
        tabs={AGENT_CLIENTS.map((key) => ({ key, label: CLIENT_LABELS[key] }))}
        active={client}
        onChange={setClient}
      >
        <p className="connect-where">
          {config.format === 'shell' ? 'Run in ' : 'Add to '}
          {config.where}:
        </p>
        <div className="connect-snippet">
          <pre className="code-block" aria-label={`${CLIENT_LABELS[client]} configuration`}>
            {config.text}
          </pre>
          <CopyButton text={config.text} label={`Copy for ${CLIENT_LABELS[client]}`} />
        </div>
        {agentId !== undefined && token !== undefined && (
          <AddToClient
            agentId={agentId}
            token={token}
            client={client}
            label={CLIENT_LABELS[client]}
            state={writes[client]}
            onState={(state) => setWrites((all) => ({ ...all, [client]: state }))}
          />
        )}
      </Tabs>
    </section>
  );
}

/** The same, for an agent registered earlier (its token is not known any more). */
export function ConnectAgentDialog({
  agentName,
  gateway,
  onClose,
}: {
  agentName: string;
  gateway: GatewayStatus;
  onClose: () => void;
}) {
  return (
    <Dialog
      title={`Connect ${agentName}`}
      description="Paste this configuration into the agent’s application; it then reaches every tool it may see through MiniHarness."
      onClose={onClose}
      size="large"
      footer={
        <button type="button" className="btn btn-primary" onClick={onClose} data-autofocus>
          Done
        </button>
      }
    >
      <ConnectAgent agentName={agentName} token={undefined} gateway={gateway} />
    </Dialog>
  );
}
