/**
 * What a server negotiated (protocol version, server info, capabilities, instructions, timing),
 * its name conflicts with other servers, and its configuration (secret values never shown).
 */
import type { ServerView } from '../../../../shared/contract.js';
import { formatDateTime, formatDuration } from '../../lib/format.js';
import { statusExplanation } from '../../lib/status.js';
import type { DetailEntry } from '../../state/slices/serversSlice.js';
import { Callout } from '../components/Callout.js';
import { JsonTree } from '../components/JsonTree.js';
import { Spinner } from '../components/Spinner.js';
import { ServerConfigCard } from './ServerConfigCard.js';
import { ConflictsCard } from './ConflictsCard.js';

function NegotiatedCards({ detail }: { detail: DetailEntry }) {
  const negotiated = detail.data?.negotiated;
  if (!negotiated) {
    return (
      <section className="card" aria-labelledby="negotiated-title">
        <h3 id="negotiated-title" className="card-title">
          Negotiated
        </h3>
        <p className="muted">Nothing negotiated yet. Once connected, its protocol version, capabilities and instructions appear here.</p>
      </section>
    );
  }
  const info = negotiated.serverInfo;
  return (
    <>
      <section className="card" aria-labelledby="negotiated-title">
        <h3 id="negotiated-title" className="card-title">
          Negotiated
        </h3>
        <dl className="props">
          <dt>Protocol version</dt>
          <dd>
            <code data-testid="protocol-version">{negotiated.protocolVersion}</code>
          </dd>
          <dt>Server</dt>
          <dd>
            <code>{info.name}</code> <span className="muted">version</span> <code>{info.version}</code>
          </dd>
          {info.title && (
            <>
              <dt>Title</dt>
              <dd>{info.title}</dd>
            </>
          )}
          <dt>Initialize took</dt>
          <dd>{formatDuration(negotiated.timings.initializeMs)}</dd>
          <dt>Ready since</dt>
          <dd>{formatDateTime(negotiated.timings.readyAt)}</dd>
        </dl>
      </section>
      <section className="card" aria-labelledby="capabilities-title">
        <h3 id="capabilities-title" className="card-title">
          Capabilities
        </h3>
        {Object.keys(negotiated.capabilities).length === 0 ? (
          <p className="muted">The server declared no capabilities.</p>
        ) : (
          <JsonTree value={negotiated.capabilities} emptyObjectLabel="supported" />
        )}
      </section>
      {negotiated.instructions && (
        <section className="card" aria-labelledby="instructions-title">
          <h3 id="instructions-title" className="card-title">
            Instructions
          </h3>
          <pre className="code-block instructions">{negotiated.instructions}</pre>
        </section>
      )}
    </>
  );
}

export function ServerOverview({ view, detail }: { view: ServerView; detail: DetailEntry | undefined }) {
  return (
    <div className="overview">
      {view.status.state !== 'error' && view.status.state !== 'reconnecting' && <p className="status-line">{statusExplanation(view.status)}</p>}
      {detail?.error && (
        <Callout tone="error" title="Could not load the details">
          {detail.error}
        </Callout>
      )}
      {!detail || (detail.loading && !detail.data) ? (
        <div className="loading-block">
          <Spinner label="Loading details" /> Loading details…
        </div>
      ) : (
        <div className="card-grid">
          <NegotiatedCards detail={detail} />
          {detail.data && detail.data.conflicts.length > 0 && <ConflictsCard serverId={detail.data.server.config.id as string} conflicts={detail.data.conflicts} />}
          <ServerConfigCard view={view} />
        </div>
      )}
    </div>
  );
}
