/**
 * Hosts sandboxed servers may reach (issue 29), beside the stored rules: each server's listed
 * hosts (an "always allow" from an egress approval lands there) and this session's "for this
 * session" answers, each revocable. Revoking a listed host takes it out of the server's profile
 * (the server restarts without it); revoking a session grant makes the next attempt ask again.
 */
import { useEffect } from 'react';
import type { HostRuleView, PermissionsView as PermissionsData } from '../../../../shared/contract.js';
import { useAppStore } from '../../state/useAppStore.js';

function serverName(data: PermissionsData, serverId: string): string {
  return data.servers.find((s) => s.serverId === serverId)?.name ?? serverId;
}

export function HostRulesCard({ data }: { data: PermissionsData }) {
  const rules = useAppStore((s) => s.hostRules);
  const load = useAppStore((s) => s.loadHostRules);
  const revoke = useAppStore((s) => s.revokeHost);
  useEffect(() => {
    void load();
  }, [load]);
  const label = (rule: HostRuleView) => `${rule.host} on ${serverName(data, rule.serverId)}`;
  return (
    <section className="card" aria-labelledby="perm-hosts">
      <h2 id="perm-hosts" className="card-title">
        Hosts sandboxed servers may reach
      </h2>
      <p className="card-note">
        Listed in a server’s Sandbox section (an “always allow” answer adds its host there), or allowed for this
        session. Any other host a sandboxed server tries is asked about.
      </p>
      {!rules || rules.length === 0 ? (
        <p className="muted">No hosts. Sandboxed servers reach no host without asking.</p>
      ) : (
        <ul className="rule-list" role="list" aria-label="Host rules">
          {rules.map((rule) => (
            <li key={`${rule.source}:${rule.serverId}:${rule.host}`} className="rule-row" aria-label={label(rule)}>
              <div className="rule-main">
                <p className="rule-match">
                  <code>{rule.host}</code>
                  <span className="muted"> on </span>
                  {serverName(data, rule.serverId)}
                </p>
                <p className="rule-meta">
                  {rule.source === 'profile' ? (
                    <span className="chip chip-positive">in its profile</span>
                  ) : (
                    <span className="chip">for this session</span>
                  )}
                </p>
              </div>
              <button
                type="button"
                className="btn btn-small btn-danger-ghost"
                aria-label={`Revoke ${label(rule)}`}
                onClick={() => void revoke(rule)}
              >
                Revoke
              </button>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
