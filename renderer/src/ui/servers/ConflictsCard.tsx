/** Tool names this server shares with others, and which server a call by that name reaches. */
import type { ConflictView } from '../../../../shared/contract.js';

export function ConflictsCard({ serverId, conflicts }: { serverId: string; conflicts: ConflictView[] }) {
  return (
    <section className="card" aria-labelledby="conflicts-title">
      <h3 id="conflicts-title" className="card-title">
        Name conflicts
      </h3>
      <p className="card-note">
        Several servers offer a tool with the same name. A call goes to the server with the highest priority.
      </p>
      <table className="table">
        <thead>
          <tr>
            <th scope="col">Tool</th>
            <th scope="col">Calls go to</th>
            <th scope="col">Offered by (priority)</th>
          </tr>
        </thead>
        <tbody>
          {conflicts.map((conflict) => (
            <tr key={conflict.name}>
              <td>
                <code>{conflict.name}</code>
              </td>
              <td>
                <code>{conflict.winner}</code>
                {conflict.winner === serverId ? (
                  <span className="chip chip-positive">this server</span>
                ) : (
                  <span className="chip chip-warning">shadowed here</span>
                )}
              </td>
              <td>
                {conflict.servers.map((s, i) => (
                  <span key={s.serverId}>
                    {i > 0 && ', '}
                    <code>{s.serverId}</code> ({s.priority})
                  </span>
                ))}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}
