/** The tools a server offers: name, description, annotation chips, and their schemas on demand. */
import { useState } from 'react';
import type { ServerView, ToolView } from '../../../../shared/contract.js';
import type { DetailEntry } from '../../state/slices/serversSlice.js';
import { EmptyState } from '../components/EmptyState.js';
import { SchemaView } from '../components/SchemaView.js';
import { Spinner } from '../components/Spinner.js';
import { CachedChip } from '../components/ToolList.js';
import { ToolIcon } from '../components/ToolIcon.js';
import { annotationChips, toolTitle } from '../../lib/annotations.js';

function ToolCard({ tool }: { tool: ToolView }) {
  const title = toolTitle(tool);
  const chips = annotationChips(tool.annotations);
  return (
    <li className="tool-card" aria-label={`Tool ${tool.name}`}>
      <div className="tool-head">
        <ToolIcon icons={tool.icons} size={18} />
        <code className="tool-name">{tool.name}</code>
        {title && <span className="tool-title">{title}</span>}
        {tool.cached && <CachedChip />}
      </div>
      {tool.shadowedBy && (
        <p className="tool-shadowed">
          Shadowed: a call to <code>{tool.name}</code> goes to <code>{tool.shadowedBy}</code>, which has a higher
          priority.
        </p>
      )}
      {tool.description && <p className="tool-description">{tool.description}</p>}
      {chips.length > 0 && (
        <ul className="chips" aria-label="Annotations">
          {chips.map((chip) => (
            <li key={chip.label} className={`chip chip-${chip.tone}`} title={chip.title}>
              {chip.label}
            </li>
          ))}
        </ul>
      )}
      <details className="tool-schema">
        <summary>Input schema</summary>
        <SchemaView schema={tool.inputSchema} label={`Input parameters of ${tool.name}`} />
      </details>
      {tool.outputSchema && (
        <details className="tool-schema">
          <summary>Output schema</summary>
          <SchemaView schema={tool.outputSchema} label={`Output fields of ${tool.name}`} />
        </details>
      )}
    </li>
  );
}

export function ServerTools({ view, detail }: { view: ServerView; detail: DetailEntry | undefined }) {
  const [filter, setFilter] = useState('');
  const tools = detail?.data?.tools;
  if (!tools) {
    return (
      <div className="loading-block">
        <Spinner label="Loading tools" /> Loading tools…
      </div>
    );
  }
  if (tools.length === 0) {
    return (
      <EmptyState icon="tools" title="No tools">
        {view.status.state === 'ready'
          ? 'This server offers no tools.'
          : 'Connect the server to list the tools it offers.'}
      </EmptyState>
    );
  }
  const needle = filter.trim().toLowerCase();
  const shown = needle
    ? tools.filter((t) => `${t.name} ${t.title ?? ''} ${t.description ?? ''}`.toLowerCase().includes(needle))
    : tools;
  return (
    <div className="tools">
      {tools.length > 5 && (
        <input
          type="search"
          className="input search"
          placeholder="Filter tools"
          aria-label="Filter tools"
          value={filter}
          onChange={(e) => setFilter(e.target.value)}
        />
      )}
      <ul className="tool-list" aria-label="Tools">
        {shown.map((tool) => (
          <ToolCard key={tool.name} tool={tool} />
        ))}
      </ul>
      {shown.length === 0 && <p className="muted">No tool matches “{filter}”.</p>}
    </div>
  );
}
