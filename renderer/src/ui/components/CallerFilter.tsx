/**
 * "Caller": all calls, the person's own (the GUI), or one agent's — the agents registered now,
 * revoked ones included (their calls stay recorded), and the chosen name even once it is removed.
 */
import { GUI_CALLER } from '../../lib/callers.js';
import { useAppStore } from '../../state/useAppStore.js';

export function CallerFilter({ value, onChange, className = 'filter' }: { value: string; onChange: (userId: string) => void; className?: string }) {
  const agents = useAppStore((s) => s.agentsView?.agents);
  const names = (agents ?? []).map((a) => ({ name: a.name, revoked: a.revokedAt !== undefined }));
  const known = value === '' || value === GUI_CALLER || names.some((a) => a.name === value);
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
        {!known && <option value={value}>{value}</option>}
      </select>
    </label>
  );
}
