/** One server of an import preview: a checkbox, where it lives, its secrets and its problems. */
import type { ImportPreview } from '../../../../shared/contract.js';
import { Icon } from '../components/Icon.js';

type PreviewServer = ImportPreview['servers'][number];

function str(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

function quoteArg(arg: string): string {
  return /^[\w@%+=:,./-]+$/.test(arg) ? arg : JSON.stringify(arg);
}

/** The command line or the URL, from the configuration it would become. */
function endpointOf(config: Record<string, unknown> | undefined): { kind: 'stdio' | 'http'; text: string } | undefined {
  if (!config) return undefined;
  if (config.transport === 'stdio') {
    const args = Array.isArray(config.args) ? config.args.filter((a): a is string => typeof a === 'string') : [];
    return { kind: 'stdio', text: [str(config.command) ?? '', ...args].map(quoteArg).join(' ') };
  }
  return { kind: 'http', text: str(config.url) ?? '' };
}

export function ImportServerRow({
  server,
  checked,
  onChange,
}: {
  server: PreviewServer;
  checked: boolean;
  onChange: (checked: boolean) => void;
}) {
  const endpoint = endpointOf(server.config);
  const disabled = !server.config || server.exists;
  const id = str(server.config?.id);
  const secrets = server.secretSlots.length;
  return (
    <li
      className={`import-server ${disabled ? 'is-disabled' : ''} ${checked ? 'is-checked' : ''}`}
      aria-label={`Server ${server.name}`}
    >
      <label className="import-server-check">
        <input
          type="checkbox"
          checked={checked}
          disabled={disabled}
          onChange={(e) => onChange(e.target.checked)}
          aria-label={`Import ${server.name}`}
        />
      </label>
      <span className="import-server-icon" aria-hidden="true">
        <Icon name={endpoint?.kind === 'http' ? 'globe' : 'terminal'} size={18} />
      </span>
      <div className="import-server-main">
        <div className="import-server-head">
          <span className="import-server-name">{server.name}</span>
          {id && id !== server.name && <code className="import-server-id">{id}</code>}
          {server.exists && <span className="chip">Already exists</span>}
          {!server.config && <span className="chip chip-error">Cannot be imported</span>}
          {server.config?.enabled === false && <span className="chip">Disabled in the file</span>}
        </div>
        {endpoint && (
          <code className="import-server-endpoint" title={endpoint.text}>
            {endpoint.text}
          </code>
        )}
        {secrets > 0 && (
          <p className="import-server-secrets">
            <Icon name="lock" size={13} />
            {secrets} {secrets === 1 ? 'secret' : 'secrets'} will be stored securely
            <span className="muted"> ({server.secretSlots.join(', ')})</span>
          </p>
        )}
        {server.exists && (
          <p className="import-server-note">A server with this id is already configured; it is left as it is.</p>
        )}
        {server.problems.length > 0 && (
          <ul className="import-server-problems" aria-label="Problems">
            {server.problems.map((problem) => (
              <li key={problem}>
                <Icon name="warning" size={13} />
                {problem.charAt(0).toUpperCase() + problem.slice(1)}
              </li>
            ))}
          </ul>
        )}
      </div>
    </li>
  );
}
