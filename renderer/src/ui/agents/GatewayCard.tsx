/**
 * The gateway's endpoint: its address (with Copy) and state. When no agent can connect (off, the
 * port taken by another program, a failure) it says why in one sentence and links to the setting.
 * It also says that a client able to sign in (OAuth) needs only the address.
 */
import type { GatewayStatus } from '../../../../shared/agents.js';
import { shellQuote } from '../../../../shared/agentConfigs.js';
import { useAppStore } from '../../state/useAppStore.js';
import { Callout } from '../components/Callout.js';
import { describeGatewayState } from '../../lib/describeError.js';
import { CopyButton } from '../components/CopyButton.js';

const CHIP_CLASS = {
  positive: 'chip chip-positive',
  neutral: 'chip',
  warning: 'chip chip-warning',
  error: 'chip chip-error',
} as const;

export function GatewayCard({ gateway }: { gateway: GatewayStatus }) {
  const navigate = useAppStore((s) => s.navigate);
  const words = describeGatewayState(gateway);
  const stdio = [gateway.stdio.command, ...gateway.stdio.args].map(shellQuote).join(' ');
  const settingsLink = (
    <button type="button" className="btn btn-small" onClick={() => navigate('settings')}>
      Open Settings → Agent gateway
    </button>
  );
  return (
    <section className="card gateway-card" aria-labelledby="agents-gateway" data-state={gateway.state}>
      <div className="card-head-row">
        <h2 id="agents-gateway" className="card-title">
          Endpoint
        </h2>
        <span className={CHIP_CLASS[words.tone]} role="status" aria-label={`Gateway: ${words.title}`}>
          {words.title}
        </span>
      </div>
      {words.tone === 'error' ? (
        <Callout tone="error" title={words.title} actions={settingsLink}>
          {words.text}
        </Callout>
      ) : (
        <p className="card-note">{words.text}</p>
      )}
      {words.tone !== 'error' && words.next === 'settings' && settingsLink}
      <dl className="props">
        <dt>Streamable HTTP</dt>
        <dd className="gateway-url">
          <code data-testid="gateway-url">{gateway.url}</code>
          {gateway.state === 'listening' && <CopyButton text={gateway.url} label="Copy address" />}
          <p className="field-hint">
            A client that can sign in (OAuth: Claude Code, VS Code, Cursor, the MCP Inspector, mcp-remote) needs only
            this address: it opens your browser on MiniHarness’s consent page, and Allow adds it here as a signed-in
            agent.
          </p>
        </dd>
        <dt>Stdio entry</dt>
        <dd>
          <code>
            {stdio} --client &lt;agent name&gt; --url {gateway.url}
          </code>
          <p className="field-hint">
            For applications that only start processes (Claude Desktop); it relays to the address above while
            MiniHarness runs.
          </p>
        </dd>
      </dl>
    </section>
  );
}
