/**
 * What a server negotiated (protocol era and how it was settled, protocol version, for a modern
 * server the versions it offered and its cache hints, server info, capabilities, instructions,
 * timing),
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
import { SandboxProfileCard } from './SandboxProfileCard.js';

const VERDICT_WORDS = {
  probe: 'negotiated now',
  prior: 'from the kept verdict',
  pinned: 'pinned in its settings',
} as const;

/** A cache hint's time to live: 0 means "do not keep it", not "fresh for 0 ms". */
export function cacheTtlWords(ttlMs: number): string {
  return ttlMs <= 0 ? 'not to be kept (ask again every time)' : `fresh for ${formatDuration(ttlMs)}`;
}

function NegotiatedCards({ detail }: { detail: DetailEntry }) {
  const negotiated = detail.data?.negotiated;
  if (!negotiated) {
    return (
      <section className="card" aria-labelledby="negotiated-title">
        <h3 id="negotiated-title" className="card-title">
          Negotiated
        </h3>
        <p className="muted">
          Nothing negotiated yet. Once connected, its protocol version, capabilities and instructions appear here.
        </p>
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
          <dt>Protocol era</dt>
          <dd>
            <span data-testid="protocol-era">
              {negotiated.era === 'modern' ? 'Modern (stateless, server/discover)' : 'Legacy (initialize)'}
            </span>{' '}
            <span className="muted">{VERDICT_WORDS[negotiated.verdictSource]}</span>
          </dd>
          <dt>Protocol version</dt>
          <dd>
            <code data-testid="protocol-version">{negotiated.protocolVersion}</code>
          </dd>
          {negotiated.supportedVersions && (
            <>
              <dt>Versions offered</dt>
              <dd data-testid="supported-versions">
                <code>{negotiated.supportedVersions.join(', ')}</code>
              </dd>
            </>
          )}
          {negotiated.cacheHints && (
            <>
              <dt>Cache hints</dt>
              <dd data-testid="cache-hints">
                {negotiated.cacheHints.ttlMs !== undefined && (
                  <span>{cacheTtlWords(negotiated.cacheHints.ttlMs)} </span>
                )}
                {negotiated.cacheHints.cacheScope !== undefined && (
                  <span className="muted">({negotiated.cacheHints.cacheScope})</span>
                )}
              </dd>
            </>
          )}
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
          <dt>{negotiated.era === 'modern' ? 'Discovery took' : 'Initialize took'}</dt>
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
      {view.status.state !== 'error' && view.status.state !== 'reconnecting' && (
        <p className="status-line">{statusExplanation(view.status)}</p>
      )}
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
          {detail.data && detail.data.conflicts.length > 0 && (
            <ConflictsCard serverId={detail.data.server.config.id as string} conflicts={detail.data.conflicts} />
          )}
          <ServerConfigCard view={view} />
          {detail.data?.sandboxProfile && <SandboxProfileCard profile={detail.data.sandboxProfile} />}
        </div>
      )}
    </div>
  );
}
