/**
 * "Caller": all calls, the person's own (the GUI), or one agent's — the agents registered now,
 * revoked ones included (their calls stay recorded), the agent runs of the person's own models
 * (each under its own caller, named by the run's task and model), the apps of the servers that
 * have one (a tool's own interface calls as "<server>'s app"), and the chosen name even once it
 * is removed.
 */
import { appCallerId } from '../../../../shared/contract.js';
import { GUI_CALLER } from '../../lib/callers.js';
import { serverIdOf, serverNameOf } from '../../lib/serverView.js';
import { useAppStore } from '../../state/useAppStore.js';

/** The app callers of the servers whose tools have an app (MCP Apps), by server name. */
function useAppCallers(): string[] {
  const tools = useAppStore((s) => s.tools);
  const servers = useAppStore((s) => s.servers);
  const withApps = new Set(tools.filter((t) => t.app !== undefined).map((t) => t.serverId));
  return [
    ...new Set(servers.filter((server) => withApps.has(serverIdOf(server))).map((s) => appCallerId(serverNameOf(s)))),
  ].sort();
}

export function CallerFilter({
  value,
  onChange,
  className = 'filter',
}: {
  value: string;
  onChange: (userId: string) => void;
  className?: string;
}) {
  const agents = useAppStore((s) => s.agentsView?.agents);
  const runs = useAppStore((s) => s.runsList);
  const apps = useAppCallers();
  const names = (agents ?? []).map((a) => ({ name: a.name, revoked: a.revokedAt !== undefined }));
  const known =
    value === '' ||
    value === GUI_CALLER ||
    names.some((a) => a.name === value) ||
    runs.some((r) => r.caller === value) ||
    apps.includes(value);
  return (
    <label className={className}>
      <span className="filter-label">Caller</span>
      <select className="input input-compact" value={value} onChange={(e) => onChange(e.target.value)}>
        <option value="">All callers</option>
        <option value={GUI_CALLER}>You (GUI)</option>
        {names.map((a) => (
          <option key={a.name} value={a.name}>
            {a.revoked ? `${a.name} (revoked)` : a.name}
          </option>
        ))}
        {runs.length > 0 && (
          <optgroup label="Agent runs">
            {runs.map((run) => (
              <option key={run.id} value={run.caller}>
                {runLabel(run.title, run.modelName)}
              </option>
            ))}
          </optgroup>
        )}
        {apps.length > 0 && (
          <optgroup label="Apps (a tool’s own interface)">
            {apps.map((caller) => (
              <option key={caller} value={caller}>
                {caller}
              </option>
            ))}
          </optgroup>
        )}
        {!known && <option value={value}>{value}</option>}
      </select>
    </label>
  );
}

/** A run as the person knows it: its task (shortened) and the model. */
function runLabel(title: string, modelName: string): string {
  const task = title.length > 48 ? `${title.slice(0, 47)}…` : title;
  return `Run: ${task} (${modelName})`;
}
