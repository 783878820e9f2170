/**
 * Every tool in one list, grouped by server (MCP servers in the Servers order, then the local
 * tools): name, description, annotation chips, and a marker when another server wins the name
 * or when the list is the saved one of a server that is still connecting.
 */
import type { ToolView } from '../../../../shared/contract.js';
import { toolKeyOf } from '../../state/slices/toolsSlice.js';
import { useAppStore } from '../../state/useAppStore.js';
import { annotationChips, toolTitle } from '../../lib/annotations.js';
import { useServerLabel } from './serverLabel.js';
import { ToolIcon } from './ToolIcon.js';
import { FlaggedChip } from './PoisonFlags.js';

export interface ToolGroup {
  serverId: string;
  tools: ToolView[];
}

/** The server is still connecting: this list is the one saved at its last connection. */
export function CachedChip() {
  return (
    <span className="chip chip-cached" title="Listed from the saved tool list; the server is not connected yet">
      cached
    </span>
  );
}

function ToolItem({ tool }: { tool: ToolView }) {
  const key = toolKeyOf(tool);
  const selected = useAppStore((s) => s.selectedToolKey === key);
  const select = useAppStore((s) => s.selectTool);
  const running = useAppStore((s) => s.toolRuns[key]?.status === 'running');
  const chips = annotationChips(tool.annotations).slice(0, 3);
  const title = toolTitle(tool);
  return (
    <li>
      <button
        type="button"
        className="tool-item"
        aria-current={selected ? 'true' : undefined}
        onClick={() => select(key)}
        data-tool={tool.name}
        data-server={tool.serverId}
      >
        <span className="tool-item-head">
          <ToolIcon icons={tool.icons} />
          {/* Title and name on lines of their own, wrapped, never cut: the name is what a call uses. */}
          <span className="tool-item-names">
            {title && <span className="tool-item-title">{title}</span>}
            <code className="tool-item-name">{tool.name}</code>
          </span>
          {running && <span className="chip chip-running">running</span>}
          {tool.shadowedBy && <span className="chip chip-warning">name conflict</span>}
          {tool.cached && <CachedChip />}
          {tool.pin?.state === 'changed' && (
            <span className="chip chip-warning" title="Changed since it was approved: its next call asks again">
              changed
            </span>
          )}
          {tool.flags && tool.flags.length > 0 && <FlaggedChip count={tool.flags.length} />}
        </span>
        {tool.description && <span className="tool-item-description">{tool.description}</span>}
        {tool.shadowedBy && (
          <span className="tool-item-shadowed">
            {/* Run here always calls this server's tool; only a call by the bare name (an agent's) goes elsewhere. */}
            By name alone, calls reach{' '}
            {tool.shadowedBy === 'local' ? 'the app’s local tool' : <code>{tool.shadowedBy}</code>}; Run here uses this
            server’s tool.
          </span>
        )}
        {chips.length > 0 && (
          <span className="tool-item-chips">
            {chips.map((chip) => (
              <span key={chip.label} className={`chip chip-${chip.tone}`}>
                {chip.label}
              </span>
            ))}
          </span>
        )}
      </button>
    </li>
  );
}

function GroupHeading({ serverId, count }: { serverId: string; count: number }) {
  const label = useServerLabel(serverId);
  return (
    <h3 className="tool-group-title">
      <span>{label}</span>
      {serverId !== 'local' && label.toLowerCase() !== serverId.toLowerCase() && (
        <code className="tool-group-id">{serverId}</code>
      )}
      <span className="tab-count">{count}</span>
    </h3>
  );
}

export function ToolList({ groups }: { groups: ToolGroup[] }) {
  return (
    <div className="tool-groups">
      {groups.map((group) => (
        <section
          key={group.serverId}
          className="tool-group"
          aria-label={`Tools of ${group.serverId === 'local' ? 'Local' : group.serverId}`}
        >
          <GroupHeading serverId={group.serverId} count={group.tools.length} />
          <ul role="list" className="tool-items">
            {group.tools.map((tool) => (
              <ToolItem key={toolKeyOf(tool)} tool={tool} />
            ))}
          </ul>
        </section>
      ))}
    </div>
  );
}
