/** The saved configuration, readable: command line or URL, variables, headers, auth, limits. */
import type { ServerView } from '../../../../shared/contract.js';
import type { OAuthConfig, ValueOrSecret } from '../../../../shared/serverConfig.js';
import { configOf } from '../../lib/serverView.js';

function SecretState({ slot, view }: { slot: string; view: ServerView }) {
  const state = view.secrets[slot];
  return (
    <span className={state === 'set' ? 'chip chip-positive' : 'chip chip-warning'}>
      {state === 'set' ? 'secret · set' : 'secret · not set'}
    </span>
  );
}

function ValueCell({ value, slot, view }: { value: ValueOrSecret; slot: string; view: ServerView }) {
  if (typeof value === 'string') return <code>{value}</code>;
  if (value.secret.source === 'env')
    return (
      <span>
        from environment variable <code>{value.secret.name}</code>
      </span>
    );
  return <SecretState slot={slot} view={view} />;
}

function Pairs({
  record,
  kind,
  view,
  label,
}: {
  record: Record<string, ValueOrSecret>;
  kind: 'env' | 'headers';
  view: ServerView;
  label: string;
}) {
  const entries = Object.entries(record);
  if (entries.length === 0) return <span className="muted">none</span>;
  return (
    <ul className="pairs" aria-label={label}>
      {entries.map(([name, value]) => (
        <li key={name}>
          <code className="pair-name">{name}</code>
          <ValueCell value={value} slot={`${kind}.${name}`} view={view} />
        </li>
      ))}
    </ul>
  );
}

/** OAuth settings: how the app signs in, never a token. */
function OAuthSummary({ auth, view }: { auth: OAuthConfig; view: ServerView }) {
  const secret = (slot: string, ref: OAuthConfig['clientSecret']) =>
    ref?.source === 'env' ? (
      <span>
        from environment variable <code>{ref.name}</code>
      </span>
    ) : (
      <SecretState slot={slot} view={view} />
    );
  return (
    <ul className="plain-list" aria-label="OAuth settings">
      <li>
        {auth.grant === 'client_credentials'
          ? 'OAuth: the app signs in with its own credentials'
          : 'OAuth: sign in in the browser'}
      </li>
      <li>
        {auth.clientId ? (
          <>
            Client ID <code>{auth.clientId}</code>
          </>
        ) : auth.clientMetadataUrl ? (
          <>
            Client metadata document <code>{auth.clientMetadataUrl}</code>
          </>
        ) : (
          'Registers itself with the server'
        )}
      </li>
      {auth.clientSecret && <li>Client secret {secret('auth.clientSecret', auth.clientSecret)}</li>}
      {auth.privateKey && (
        <li>
          Private key ({auth.signingAlgorithm ?? 'ES256'}) {secret('auth.privateKey', auth.privateKey)}
        </li>
      )}
      {auth.scope && (
        <li>
          Scopes <code>{auth.scope}</code>
        </li>
      )}
      {auth.redirectPort !== undefined && <li>Redirect port {auth.redirectPort}</li>}
    </ul>
  );
}

export function ServerConfigCard({ view }: { view: ServerView }) {
  const config = configOf(view);
  if (!config) return null;
  return (
    <section className="card" aria-labelledby="config-title">
      <h3 id="config-title" className="card-title">
        Configuration
      </h3>
      <dl className="props">
        {config.transport === 'stdio' ? (
          <>
            <dt>Command</dt>
            <dd>
              <code>{config.command}</code>
            </dd>
            <dt>Arguments</dt>
            <dd>
              {config.args.length === 0 ? (
                <span className="muted">none</span>
              ) : (
                <ol className="args-list">
                  {config.args.map((arg, i) => (
                    <li key={i}>
                      <code>{arg}</code>
                    </li>
                  ))}
                </ol>
              )}
            </dd>
            <dt>Working directory</dt>
            <dd>{config.cwd ? <code>{config.cwd}</code> : <span className="muted">the app’s</span>}</dd>
            <dt>Environment</dt>
            <dd>
              <Pairs record={config.env} kind="env" view={view} label="Environment variables" />
            </dd>
          </>
        ) : (
          <>
            <dt>URL</dt>
            <dd>
              <code>{config.url}</code>
            </dd>
            <dt>Headers</dt>
            <dd>
              <Pairs record={config.headers} kind="headers" view={view} label="Headers" />
            </dd>
            <dt>Authentication</dt>
            <dd>
              {config.auth.kind === 'none' ? (
                <span className="muted">none</span>
              ) : config.auth.kind === 'oauth' ? (
                <OAuthSummary auth={config.auth} view={view} />
              ) : config.auth.token.source === 'env' ? (
                <span>
                  Bearer token from environment variable <code>{config.auth.token.name}</code>
                </span>
              ) : (
                <span>
                  Bearer token <SecretState slot="auth.token" view={view} />
                </span>
              )}
            </dd>
          </>
        )}
        <dt>Timeout</dt>
        <dd>{config.timeoutMs.toLocaleString()} ms</dd>
        <dt>Priority</dt>
        <dd>{config.priority}</dd>
        <dt>Protocol era</dt>
        <dd>
          {config.protocolEra === 'auto'
            ? 'Automatic (negotiated)'
            : config.protocolEra === 'legacy'
              ? 'Pinned: legacy (2025)'
              : 'Pinned: modern (2026-07-28)'}
        </dd>
        <dt>Trusted</dt>
        <dd>
          {config.trusted
            ? 'Yes — its tool annotations may set default permissions'
            : 'No — annotations are shown as hints only'}
        </dd>
        <dt>Roots</dt>
        <dd>
          {(config.roots ?? []).length === 0 ? (
            <span className="muted">none shared</span>
          ) : (
            <ul className="args-list" aria-label="Roots">
              {(config.roots ?? []).map((root) => (
                <li key={root}>
                  <code>{root}</code>
                </li>
              ))}
            </ul>
          )}
        </dd>
      </dl>
    </section>
  );
}
