/**
 * What an agent may see (and so call): every server's tools, or the chosen servers' only; and the
 * app's own local tools (files and commands in your folders) only when allowed. A chosen server
 * that no longer exists stays listed, so it can be unticked.
 */
import type { AgentVisibility } from '../../../../shared/agents.js';
import { serverIdOf, serverNameOf } from '../../lib/serverView.js';
import { useAppStore } from '../../state/useAppStore.js';
import { FieldErrorText } from '../components/Field.js';

/** The servers to tick (a chosen one that no longer exists stays listed). */
function ChosenServers({ value, onChange }: { value: AgentVisibility; onChange: (next: AgentVisibility) => void }) {
  const servers = useAppStore((s) => s.servers);
  const known = servers.map((v) => ({ id: serverIdOf(v), name: serverNameOf(v) }));
  const gone = value.serverIds
    .filter((id) => !known.some((k) => k.id === id))
    .map((id) => ({ id, name: `${id} (removed)` }));

  function toggle(id: string, on: boolean): void {
    const serverIds = on ? [...value.serverIds, id] : value.serverIds.filter((s) => s !== id);
    onChange({ ...value, serverIds });
  }

  return (
    <div className="indented">
      {known.length + gone.length === 0 ? (
        <p className="muted">
          No servers yet: the agent sees no server tools until you add servers and tick them here.
        </p>
      ) : (
        <ul className="plain-list agent-server-list" aria-label="Chosen servers">
          {[...known, ...gone].map((server) => (
            <li key={server.id}>
              <label className="checkbox-field">
                <input
                  type="checkbox"
                  checked={value.serverIds.includes(server.id)}
                  onChange={(e) => toggle(server.id, e.target.checked)}
                />
                <span>
                  <span className="checkbox-label">{server.name}</span> <code className="muted">{server.id}</code>
                </span>
              </label>
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}

export function VisibilityFields({
  idPrefix,
  value,
  onChange,
  errors,
}: {
  idPrefix: string;
  value: AgentVisibility;
  onChange: (next: AgentVisibility) => void;
  errors: Record<string, string[]>;
}) {
  const serverErrors = [...(errors['visibility.serverIds'] ?? []), ...(errors['visibility.allServers'] ?? [])];

  return (
    <fieldset className="form-section agent-visibility">
      <legend className="field-label">Servers it sees</legend>
      <div className="choice-group" role="radiogroup" aria-label="Servers it sees">
        <label className={`choice ${value.allServers ? 'is-selected' : ''}`}>
          <input
            type="radio"
            name={`${idPrefix}-scope`}
            checked={value.allServers}
            onChange={() => onChange({ ...value, allServers: true })}
          />
          <span>
            <span className="choice-title">All servers</span>
            <span className="choice-text">Every enabled server’s tools, including servers added later.</span>
          </span>
        </label>
        <label className={`choice ${value.allServers ? '' : 'is-selected'}`}>
          <input
            type="radio"
            name={`${idPrefix}-scope`}
            checked={!value.allServers}
            onChange={() => onChange({ ...value, allServers: false })}
          />
          <span>
            <span className="choice-title">Chosen servers</span>
            <span className="choice-text">Only the servers ticked below.</span>
          </span>
        </label>
      </div>
      {!value.allServers && <ChosenServers value={value} onChange={onChange} />}
      <FieldErrorText id={`${idPrefix}-servers`} errors={serverErrors} />
      <label className="checkbox-field">
        <input
          type="checkbox"
          checked={value.localTools}
          onChange={(e) => onChange({ ...value, localTools: e.target.checked })}
        />
        <span>
          <span className="checkbox-label">Local tools</span>
          <span className="field-hint">
            Read and write files and run commands in your folders (Settings → Folders). Each call still follows
            Permissions.
          </span>
        </span>
      </label>
      <label className="checkbox-field">
        <input
          type="checkbox"
          checked={value.ownNames === true}
          onChange={(e) => onChange({ ...value, ownNames: e.target.checked })}
        />
        <span>
          <span className="checkbox-label">Tools as their servers call them</span>
          <span className="field-hint">
            Each tool is listed as its server calls it when no other server it sees offers the same one (the higher
            priority keeps it); every tool also stays reachable as server__tool.
          </span>
        </span>
      </label>
    </fieldset>
  );
}
