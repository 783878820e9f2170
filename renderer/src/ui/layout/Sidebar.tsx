/** The app's navigation: one button per view, the current one marked with aria-current. */
import { useEffect } from 'react';
import { selectHistoryAttentionCount, selectPendingApprovalCount } from '../../state/selectors.js';
import type { ViewName } from '../../state/slices/navigationSlice.js';
import { useAppStore } from '../../state/useAppStore.js';
import type { IconName } from '../components/Icon.js';
import { Icon } from '../components/Icon.js';
import { ConnectionIndicator } from './ConnectionIndicator.js';

const MAIN_ITEMS: { view: ViewName; label: string; icon: IconName }[] = [
  { view: 'servers', label: 'Servers', icon: 'servers' },
  { view: 'catalog', label: 'Catalog', icon: 'globe' },
  { view: 'tools', label: 'Tools', icon: 'tools' },
  { view: 'approvals', label: 'Approvals', icon: 'approvals' },
  { view: 'permissions', label: 'Permissions', icon: 'lock' },
  { view: 'traces', label: 'Traces', icon: 'traces' },
  { view: 'history', label: 'History', icon: 'history' },
  { view: 'agents', label: 'Agents', icon: 'agents' },
  { view: 'runs', label: 'Agent runs', icon: 'runs' },
];

function NavButton({ view, label, icon }: { view: ViewName; label: string; icon: IconName }) {
  const current = useAppStore((s) => s.view === view);
  const navigate = useAppStore((s) => s.navigate);
  const errorCount = useAppStore((s) =>
    view === 'servers' ? s.servers.filter((v) => v.status.state === 'error').length : 0,
  );
  const pendingCount = useAppStore((s) => (view === 'approvals' ? selectPendingApprovalCount(s) : 0));
  const attentionCount = useAppStore((s) => (view === 'history' ? selectHistoryAttentionCount(s) : 0));
  // The gateway cannot take agents (port in use, failed): marked like a server in error.
  const gatewayDown = useAppStore(
    (s) =>
      view === 'agents' && (s.agentsView?.gateway.state === 'port_in_use' || s.agentsView?.gateway.state === 'failed'),
  );
  return (
    <li>
      <button
        type="button"
        className="nav-item"
        aria-current={current ? 'page' : undefined}
        onClick={() => navigate(view)}
      >
        <Icon name={icon} size={18} />
        <span className="nav-label">{label}</span>
        {pendingCount > 0 && (
          <span className="nav-count nav-count-attention" aria-label={`${pendingCount} waiting`}>
            {pendingCount}
          </span>
        )}
        {attentionCount > 0 && (
          <span
            className="nav-count nav-count-warning"
            aria-label={`${attentionCount} in progress or unknown`}
            title="Calls in progress, or whose result is unknown"
          >
            {attentionCount}
          </span>
        )}
        {gatewayDown && (
          <span
            className="nav-count nav-count-error"
            aria-label="the gateway is not listening"
            title="The agent gateway could not start"
          >
            !
          </span>
        )}
        {errorCount > 0 && (
          <span className="nav-count nav-count-error" aria-label={`${errorCount} with errors`}>
            {errorCount}
          </span>
        )}
      </button>
    </li>
  );
}

export function Sidebar() {
  const team = useAppStore((s) => s.team);
  const isAdmin = team?.team === true && team.role === 'admin';
  const loadTeam = useAppStore((s) => s.loadTeam);
  useEffect(() => {
    // A main without people.me (or a refusal) shows nothing team-only.
    loadTeam().catch(() => undefined);
  }, [loadTeam]);
  return (
    <aside className="sidebar">
      <div className="brand">
        <span className="brand-mark" aria-hidden="true">
          <Icon name="logo" size={18} />
        </span>
        <span className="brand-name">MiniHarness</span>
      </div>
      <nav className="nav" aria-label="Main">
        <ul className="nav-list">
          {MAIN_ITEMS.map((item) => (
            <NavButton key={item.view} {...item} />
          ))}
        </ul>
        <ul className="nav-list nav-list-bottom">
          {/* miniharness serve only, for an admin: the desktop app is one person's. */}
          {isAdmin && <NavButton view="people" label="People" icon="people" />}
          <NavButton view="settings" label="Settings" icon="settings" />
        </ul>
      </nav>
      {team?.team === true && (
        <p className="nav-person" aria-label="Signed in as">
          {team.name} · {team.role}
        </p>
      )}
      <ConnectionIndicator />
    </aside>
  );
}
