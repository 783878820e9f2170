/**
 * What changed in a tool since it was approved (issue 31), side by side: the description's word
 * diff, each schema's line diff (canonical JSON), and the other fields before and after. Shown in
 * the approval dialog of a changed tool and in the tool's detail. Main computes the diff (jsdiff);
 * this only lays the parts out: the pinned side keeps what was removed, the current side what was added.
 */
import type { DiffPart, ToolChangeView } from '../../../../shared/contract.js';
import { formatDateTime } from '../../lib/format.js';
import { callerLabel } from '../../lib/callers.js';

function Side({ parts, side, code }: { parts: DiffPart[]; side: 'before' | 'after'; code?: boolean }) {
  const shown = parts.filter((p) => (side === 'before' ? !p.added : !p.removed));
  const Tag = code ? 'pre' : 'p';
  return (
    <Tag className={`diff-side diff-${side} ${code ? 'code-block' : ''}`} data-side={side}>
      {shown.map((p, i) =>
        p.added ? (
          <ins key={i}>{p.value}</ins>
        ) : p.removed ? (
          <del key={i}>{p.value}</del>
        ) : (
          <span key={i}>{p.value}</span>
        ),
      )}
    </Tag>
  );
}

function SideBySide({ label, parts, code }: { label: string; parts: DiffPart[]; code?: boolean }) {
  return (
    <div className="diff-block" role="group" aria-label={label}>
      <h4 className="diff-title">{label}</h4>
      <div className="diff-columns">
        <div>
          <span className="diff-column-head">When approved</span>
          <Side parts={parts} side="before" {...(code ? { code } : {})} />
        </div>
        <div>
          <span className="diff-column-head">Now</span>
          <Side parts={parts} side="after" {...(code ? { code } : {})} />
        </div>
      </div>
    </div>
  );
}

/** A pinner as people read it: the person, an agent, or a rule. */
function pinnerLabel(pinnedBy: string): string {
  if (pinnedBy === 'default') return 'its default level';
  if (pinnedBy.startsWith('rule:')) return 'a rule';
  return callerLabel(pinnedBy);
}

export function ToolChangedDiff({ change }: { change: ToolChangeView }) {
  return (
    <section className="tool-changed" aria-label="What changed since it was approved">
      <p className="tool-changed-lead">
        <strong>This tool changed since it was approved</strong> ({formatDateTime(change.pinnedAt)}, by{' '}
        {pinnerLabel(change.pinnedBy)}). The server now describes it differently: check what changed before you allow it
        again.
      </p>
      {change.description && <SideBySide label="Description" parts={change.description} />}
      {change.schemas.map((s) => (
        <SideBySide
          key={s.field}
          label={s.field === 'inputSchema' ? 'Input schema' : 'Output schema'}
          parts={s.parts}
          code
        />
      ))}
      {change.fields.length > 0 && (
        <table className="diff-fields" aria-label="Other changes">
          <thead>
            <tr>
              <th scope="col">Field</th>
              <th scope="col">When approved</th>
              <th scope="col">Now</th>
            </tr>
          </thead>
          <tbody>
            {change.fields.map((f) => (
              <tr key={f.field}>
                <th scope="row">
                  <code>{f.field}</code>
                </th>
                <td>{f.before !== undefined ? <code>{f.before}</code> : <span className="muted">not set</span>}</td>
                <td>{f.after !== undefined ? <code>{f.after}</code> : <span className="muted">not set</span>}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <p className="muted tool-changed-hashes">
        Pinned <code>{change.pinnedHash.slice(0, 19)}</code> · now <code>{change.currentHash.slice(0, 19)}</code>
      </p>
    </section>
  );
}
