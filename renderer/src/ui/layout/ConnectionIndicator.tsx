/** A quiet line at the foot of the sidebar: whether the link is up, where the app runs. */
import { useAppStore } from '../../state/useAppStore.js';

export function ConnectionIndicator() {
  const connection = useAppStore((s) => s.connection);
  const mode = useAppStore((s) => s.info?.mode);
  const version = useAppStore((s) => s.info?.version);
  const up = connection.status === 'open';
  const label = up ? 'Connected' : connection.status === 'connecting' ? 'Connecting…' : 'Offline';
  return (
    <div className="connection" role="status" aria-label={`Connection: ${label}`}>
      <span className={`connection-dot ${up ? 'is-up' : 'is-down'}`} aria-hidden="true" />
      <span className="connection-text">
        <span className="connection-state">{label}</span>
        {mode && (
          <span className="connection-mode">
            {mode === 'browser' ? 'Browser mode' : 'Desktop'}
            {version && ` · v${version}`}
          </span>
        )}
      </span>
    </div>
  );
}
