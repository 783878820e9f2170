/**
 * Permissions → Pinned tools (issue 31): each tool's definition as it was when a decision first
 * let it run — the tool, its pinned hash, when and by whom — marked when the server lists it now
 * with another definition (its next call asks again), and the rule that denies flagged tools.
 */
import type { PermissionsView } from '../../../../shared/contract.js';
import { formatDateTime } from '../../lib/format.js';
import { callerLabel } from '../../lib/callers.js';
import { useAppStore } from '../../state/useAppStore.js';

const DECISION_WORDS: Record<NonNullable<PermissionsView['pins']>[number]['decision'], string> = {
  'allow-once': 'allowed once',
  'allow-session': 'allowed for a session',
  'allow-always': 'always allowed',
  rule: 'allowed by a rule',
};

function byWhom(pinnedBy: string): string {
  if (pinnedBy === 'default') return 'its default';
  if (pinnedBy.startsWith('rule:')) return `rule ${pinnedBy.slice(5)}`;
  return callerLabel(pinnedBy);
}

export function PinnedToolsSection({ data }: { data: PermissionsView }) {
  const setDenyFlagged = useAppStore((s) => s.setDenyFlagged);
  const busy = useAppStore((s) => s.permissionsBusy['deny-flagged'] === true);
  const pins = data.pins ?? [];
  return (
    <section className="card" aria-labelledby="perm-pins">
      <h2 id="perm-pins" className="card-title">
        Pinned tools
      </h2>
      <p className="card-note">
        A tool is pinned to its definition the first time it is allowed. If its server changes it, the next call asks
        again — whatever the rules say — and shows what changed.
      </p>
      <label className="checkbox-field">
        <input
          type="checkbox"
          checked={data.denyFlagged === true}
          disabled={busy}
          onChange={(e) => void setDenyFlagged(e.target.checked)}
        />
        <span>Deny tools with poisoning flags</span>
      </label>
      {pins.length === 0 ? (
        <p className="muted">No tool is pinned yet.</p>
      ) : (
        <table className="pin-table" aria-label="Pinned tools">
          <thead>
            <tr>
              <th scope="col">Tool</th>
              <th scope="col">Pinned hash</th>
              <th scope="col">When</th>
              <th scope="col">By</th>
            </tr>
          </thead>
          <tbody>
            {pins.map((pin) => (
              <tr key={`${pin.serverId}\0${pin.toolName}`} data-tool={pin.toolName}>
                <td>
                  <code>{pin.toolName}</code> <span className="muted">on {pin.serverId}</span>
                  {pin.changed && <span className="chip chip-warning">changed</span>}
                </td>
                <td>
                  <code title={pin.hash}>{pin.hash.slice(0, 19)}…</code>
                </td>
                <td>{formatDateTime(pin.pinnedAt)}</td>
                <td>
                  {byWhom(pin.pinnedBy)} <span className="muted">({DECISION_WORDS[pin.decision]})</span>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
