/**
 * Any JSON value as a readable, collapsible tree (native <details>, so it is keyboard-operable):
 * objects expand into their fields, booleans read yes/no, and an empty object can carry a word
 * of its own ("supported" for capabilities, where presence is the meaning).
 */
import { countOf } from '../../lib/plural.js';

export function JsonTree({
  value,
  emptyObjectLabel = 'empty',
  openDepth = 1,
}: {
  value: unknown;
  emptyObjectLabel?: string;
  openDepth?: number;
}) {
  if (!isContainer(value) || entriesOf(value).length === 0) {
    return <Leaf value={value} emptyObjectLabel={emptyObjectLabel} />;
  }
  return (
    <ul className="tree" role="list">
      {entriesOf(value).map(([key, child]) => (
        <TreeNode
          key={key}
          name={key}
          value={child}
          depth={0}
          openDepth={openDepth}
          emptyObjectLabel={emptyObjectLabel}
        />
      ))}
    </ul>
  );
}

function isContainer(value: unknown): value is Record<string, unknown> | unknown[] {
  return typeof value === 'object' && value !== null;
}

function entriesOf(value: Record<string, unknown> | unknown[]): [string, unknown][] {
  return Array.isArray(value) ? value.map((v, i) => [String(i), v]) : Object.entries(value);
}

function TreeNode({
  name,
  value,
  depth,
  openDepth,
  emptyObjectLabel,
}: {
  name: string;
  value: unknown;
  depth: number;
  openDepth: number;
  emptyObjectLabel: string;
}) {
  if (isContainer(value) && entriesOf(value).length > 0) {
    const entries = entriesOf(value);
    return (
      <li className="tree-item">
        <details open={depth < openDepth}>
          <summary>
            <span className="tree-key">{name}</span>
            <span className="tree-meta">
              {Array.isArray(value)
                ? countOf(entries.length, 'item', 'items')
                : countOf(entries.length, 'field', 'fields')}
            </span>
          </summary>
          <ul className="tree" role="list">
            {entries.map(([key, child]) => (
              <TreeNode
                key={key}
                name={key}
                value={child}
                depth={depth + 1}
                openDepth={openDepth}
                emptyObjectLabel={emptyObjectLabel}
              />
            ))}
          </ul>
        </details>
      </li>
    );
  }
  return (
    <li className="tree-item tree-leaf">
      <span className="tree-key">{name}</span>
      <Leaf value={value} emptyObjectLabel={emptyObjectLabel} />
    </li>
  );
}

function Leaf({ value, emptyObjectLabel }: { value: unknown; emptyObjectLabel: string }) {
  if (value === true) return <span className="chip chip-positive">yes</span>;
  if (value === false) return <span className="chip">no</span>;
  if (value === null || value === undefined) return <span className="tree-null">none</span>;
  if (Array.isArray(value)) return <span className="tree-null">no items</span>;
  if (typeof value === 'object') return <span className="chip chip-positive">{emptyObjectLabel}</span>;
  if (typeof value === 'string') return <span className="tree-string">{value}</span>;
  return <span className="tree-number">{String(value)}</span>;
}
