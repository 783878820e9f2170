/**
 * The names agents see: `<server>__<tool>`, with what had to change and why — characters MCP
 * clients refuse, a name longer than 64 characters, or a name another tool got first (tools are
 * named in one fixed order, server id then tool name, so the same tools always get the same names).
 */
import { useState } from 'react';
import type { GatewayToolName } from '../../../../shared/agents.js';
import { countOf } from '../../lib/plural.js';

/** The plain name before any hash, as the gateway builds it (characters outside [A-Za-z0-9_-] become `_`). */
function plainName(tool: GatewayToolName): string {
  const clean = (part: string) => part.replace(/[^A-Za-z0-9_-]/g, '_');
  return `${clean(tool.serverId)}__${clean(tool.toolName)}`;
}

function Why({ tool, all }: { tool: GatewayToolName; all: GatewayToolName[] }) {
  switch (tool.renamed) {
    case 'none':
      return null;
    case 'sanitized':
      return (
        <>
          <span className="chip chip-warning">renamed</span> Characters other than letters, digits, _ and - became _.
        </>
      );
    case 'shortened':
      return (
        <>
          <span className="chip chip-warning">shortened</span> Longer than 64 characters: cut, and ended with a short
          hash of server and tool.
        </>
      );
    case 'collision': {
      const plain = plainName(tool);
      const holder = all.find((t) => t.name === plain);
      return (
        <>
          <span className="chip chip-warning">collision</span>{' '}
          {holder ? (
            <>
              <code>{plain}</code> went to <code>{holder.toolName}</code> on {holder.serverId}, which comes first; this
              one ends with a hash instead.
            </>
          ) : (
            <>
              Its name was taken by a tool that comes first (by server id, then tool name); this one ends with a hash
              instead.
            </>
          )}
        </>
      );
    }
  }
}

export function ToolNamesCard({ tools }: { tools: GatewayToolName[] }) {
  const [onlyRenamed, setOnlyRenamed] = useState(false);
  const renamed = tools.filter((t) => t.renamed !== 'none');
  const rows = onlyRenamed ? renamed : tools;
  return (
    <section className="card" aria-labelledby="agents-tools">
      <div className="card-head-row">
        <h2 id="agents-tools" className="card-title">
          Tool names agents see
        </h2>
        <label className="checkbox-field">
          <input type="checkbox" checked={onlyRenamed} onChange={(e) => setOnlyRenamed(e.target.checked)} />
          <span className="checkbox-label">Only renamed ({renamed.length})</span>
        </label>
      </div>
      <p className="card-note">
        {countOf(tools.length, 'tool', 'tools')} in all, each agent seeing those it may. Names are{' '}
        <code>&lt;server&gt;__&lt;tool&gt;</code>, at most 64 characters of letters, digits, _ and -, as MCP clients
        require.
      </p>
      {rows.length === 0 ? (
        <p className="muted">
          {tools.length === 0 ? 'No tools yet: add a server in Servers.' : 'No tool had to be renamed.'}
        </p>
      ) : (
        <div className="table-scroll">
          <table className="table" aria-label="Tool names agents see">
            <thead>
              <tr>
                <th scope="col">Name agents see</th>
                <th scope="col">Server</th>
                <th scope="col">Tool</th>
                <th scope="col">Why renamed</th>
              </tr>
            </thead>
            <tbody>
              {rows.map((tool) => (
                <tr key={tool.name} data-renamed={tool.renamed}>
                  <th scope="row">
                    <code>{tool.name}</code>
                  </th>
                  <td>{tool.serverId}</td>
                  <td>
                    <code>{tool.toolName}</code>
                  </td>
                  <td>
                    <Why tool={tool} all={tools} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}
