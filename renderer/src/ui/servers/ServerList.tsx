/** The list of servers: name, live status, transport and tool count; a row selects the server. */
import type { ServerView } from '../../../../shared/contract.js';
import { serverIdOf, serverNameOf, transportLabel } from '../../lib/serverView.js';
import { useAppStore } from '../../state/useAppStore.js';
import { Icon } from '../components/Icon.js';
import { StatusBadge } from '../components/StatusBadge.js';
import { NotSandboxedChip } from './ServerSandbox.js';

function ServerRow({ view }: { view: ServerView }) {
  const id = serverIdOf(view);
  const selected = useAppStore((s) => s.selectedServerId === id);
  const select = useAppStore((s) => s.selectServer);
  const transport = view.config.transport;
  return (
    <li>
      <button
        type="button"
        className="server-item"
        aria-current={selected ? 'true' : undefined}
        onClick={() => select(id)}
      >
        <span className="server-item-icon" aria-hidden="true">
          <Icon name={transport === 'stdio' ? 'terminal' : 'globe'} size={18} />
        </span>
        <span className="server-item-main">
          <span className="server-item-name">{serverNameOf(view)}</span>
          <span className="server-item-meta">
            <StatusBadge status={view.status} />
            <NotSandboxedChip view={view} />
            <span className="server-item-facts">
              {transportLabel(transport)} · {view.toolCount} {view.toolCount === 1 ? 'tool' : 'tools'}
            </span>
          </span>
        </span>
      </button>
    </li>
  );
}

export function ServerList() {
  const servers = useAppStore((s) => s.servers);
  return (
    <nav className="server-list" aria-label="Server list">
      <ul role="list">
        {servers.map((view) => (
          <ServerRow key={serverIdOf(view)} view={view} />
        ))}
      </ul>
    </nav>
  );
}
