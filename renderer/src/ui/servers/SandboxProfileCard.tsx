/**
 * A sandboxed stdio server's profile (issue 29): what its sandbox hides, and what was added to the
 * defaults and why — what its launcher (npx, uvx, node, python) needs among them. A server started
 * with docker is told plainly that docker's socket is not opened.
 */
import type { SandboxProfileView } from '../../../../shared/contract.js';
import { additionWords } from '../../lib/sandboxWords.js';

function Paths({ label, paths }: { label: string; paths: string[] | undefined }) {
  if (!paths?.length) return null;
  return (
    <>
      {' '}
      <span className="muted">{label}</span>{' '}
      {paths.map((path, index) => (
        <span key={path}>
          {index > 0 && ', '}
          <code>{path}</code>
        </span>
      ))}
    </>
  );
}

export function SandboxProfileCard({ profile }: { profile: SandboxProfileView }) {
  return (
    <section className="card sandbox-profile" aria-labelledby="sandbox-profile-title">
      <h3 id="sandbox-profile-title" className="card-title">
        Sandbox profile
      </h3>
      {profile.launcher === 'docker' && (
        <p className="callout callout-warning sandbox-docker-note" role="note">
          Started with docker: its socket is not opened in the sandbox. Whoever can use docker’s socket is root on this
          machine, so no sandboxed server gets it; docker cannot start containers from here. To run this server, turn
          its sandbox off in its settings — knowing it then runs with all your rights.
        </p>
      )}
      <p className="muted">
        Hidden from it: <Paths label="" paths={profile.hidden} />
      </p>
      <ul className="plain-list" aria-label="Added to its sandbox">
        {profile.additions.map((addition) => (
          <li key={`${addition.reason}-${addition.launcher ?? ''}`}>
            <span>{additionWords(addition)}</span>
            <Paths label="reads" paths={addition.read} />
            <Paths label="writes" paths={addition.write} />
            <Paths label="reaches" paths={addition.hosts} />
          </li>
        ))}
      </ul>
    </section>
  );
}
