/**
 * The Permissions view: every tool's level (ALLOW / ASK / DENY) and why, a per-tool setting
 * (Default or a level of your own), per-server trust, and the stored rules — per-tool levels and
 * the "always allow" answers from approval dialogs — each revocable.
 */
import { useEffect, useMemo, useRef, useState } from 'react';
import type {
  PermissionReasonKind,
  PermissionRuleView,
  PermissionsView as PermissionsData,
} from '../../../../shared/contract.js';
import { formatDateTime } from '../../lib/format.js';
import { pluralWord } from '../../lib/plural.js';
import type { LevelChoice } from '../../state/slices/permissionsSlice.js';
import { useAppStore } from '../../state/useAppStore.js';
import { Callout } from '../components/Callout.js';
import { Spinner } from '../components/Spinner.js';
import { ViewHeader } from '../components/ViewHeader.js';
import { LevelBadge } from '../components/LevelBadge.js';
import { PinnedToolsSection } from './PinnedToolsSection.js';
import { SentenceOrSameAsAbove } from '../components/SameAsAbove.js';
import { HostRulesCard } from './HostRulesCard.js';

type ToolRow = PermissionsData['tools'][number];

const CHOICES: { value: LevelChoice; label: string; title: string }[] = [
  { value: 'default', label: 'Default', title: 'No rule of its own: the default for its server applies' },
  { value: 'ALLOW', label: 'Allow', title: 'Runs without asking' },
  { value: 'ASK', label: 'Ask', title: 'Asks for your approval before each call' },
  { value: 'DENY', label: 'Deny', title: 'Never runs' },
];

const REASON_KIND: Record<PermissionReasonKind, string> = {
  rule: 'Rule',
  'session-grant': 'Allowed for this session',
  'trusted-annotation-default': 'Default from annotations',
  'untrusted-default': 'Untrusted server',
  default: 'Default',
  'forced-ask': 'Always asks',
  'tool-changed': 'Changed since approved',
};

const STALE_WORDS: Record<NonNullable<PermissionRuleView['staleReason']>, string> = {
  tool_changed: 'No longer applies: the tool changed since you allowed it.',
  server_replaced:
    'No longer applies: the server it was made for was removed, and the server with this id now is another one.',
  server_removed: 'No longer applies: the server it was made for was removed.',
};

function serverName(data: PermissionsData, serverId: string): string {
  if (serverId === 'local') return 'Local';
  return data.servers.find((s) => s.serverId === serverId)?.name ?? serverId;
}

/**
 * The tool's own setting. When another stored rule decides the tool (an "always allow" from an
 * approval, a rule for many tools), no choice is pressed — "Default" would be false, the tool does
 * not follow its default — and the rule that governs is named, revocable where it stands.
 */
function LevelControl({
  row,
  rule,
  governing,
}: {
  row: ToolRow;
  rule: PermissionRuleView | undefined;
  governing: PermissionRuleView | undefined;
}) {
  const setLevel = useAppStore((s) => s.setToolLevel);
  const removeRule = useAppStore((s) => s.removeRule);
  const busy = useAppStore((s) => s.permissionsBusy[`tool:${row.serverId}:${row.toolName}`] === true);
  const revoking = useAppStore((s) => (governing ? s.permissionsBusy[`rule:${governing.id}`] === true : false));
  const current: LevelChoice | undefined = rule ? rule.level : governing ? undefined : 'default';
  return (
    <div className="level-setting">
      <div className="segmented level-control" role="group" aria-label={`Level of ${row.toolName} on ${row.serverId}`}>
        {CHOICES.map((choice) => (
          <button
            key={choice.value}
            type="button"
            className={`segment segment-${choice.value.toLowerCase()}`}
            aria-pressed={current === choice.value}
            title={choice.title}
            disabled={busy}
            onClick={() => {
              if (current !== choice.value) void setLevel(row.serverId, row.toolName, choice.value);
            }}
          >
            {choice.label}
          </button>
        ))}
        {busy && <Spinner label="Saving" />}
      </div>
      {governing && (
        <p className="level-governed">
          {governing.fromApproval ? 'An “always allow” from an approval decides it.' : 'A stored rule decides it.'}{' '}
          <button
            type="button"
            className="link-button"
            disabled={revoking}
            aria-label={`Revoke the rule that decides ${row.toolName}`}
            onClick={() => void removeRule(governing.id)}
          >
            Revoke
          </button>
        </p>
      )}
    </div>
  );
}

function TrustCard({ data }: { data: PermissionsData }) {
  const setTrust = useAppStore((s) => s.setServerTrust);
  const busy = useAppStore((s) => s.permissionsBusy);
  return (
    <section className="card" aria-labelledby="perm-servers">
      <h2 id="perm-servers" className="card-title">
        Server trust
      </h2>
      <p className="card-note">
        Servers describe their tools with annotations such as <em>read-only</em> or <em>destructive</em>. Only for a{' '}
        <strong>trusted</strong> server do these set the default level (read-only tools run, others ask). For an
        untrusted server every tool asks first, and its annotations are shown as unverified hints. Trust only servers
        whose code you know.
      </p>
      {data.servers.length === 0 ? (
        <p className="muted">No servers yet. Local tools are always trusted.</p>
      ) : (
        <ul className="trust-list" role="list">
          {data.servers.map((server) => {
            const working = busy[`server:${server.serverId}`] === true;
            return (
              <li key={server.serverId} className="trust-row">
                <label className="switch-field">
                  <input
                    type="checkbox"
                    role="switch"
                    className="switch"
                    checked={server.trusted}
                    disabled={working}
                    onChange={(event) => void setTrust(server.serverId, event.target.checked)}
                    aria-describedby={`trust-${server.serverId}`}
                  />
                  <span className="switch-text">
                    <span className="trust-name">Trust {server.name}</span>
                    <span id={`trust-${server.serverId}`} className="trust-effect">
                      {server.trusted
                        ? 'Annotations set the defaults.'
                        : 'Every tool asks first; annotations are hints.'}
                    </span>
                  </span>
                </label>
                <code className="muted">{server.serverId}</code>
                {working && <Spinner label="Saving" />}
              </li>
            );
          })}
        </ul>
      )}
    </section>
  );
}

function SessionGrantButton({ row }: { row: ToolRow }) {
  const revoke = useAppStore((s) => s.revokeSessionGrant);
  const busy = useAppStore((s) => s.permissionsBusy[`grant:${row.serverId}:${row.toolName}`] === true);
  return (
    <button
      type="button"
      className="btn btn-small btn-danger-ghost"
      disabled={busy}
      aria-label={`Revoke the session grant of ${row.toolName}`}
      onClick={() => void revoke(row.serverId, row.toolName)}
    >
      {busy && <Spinner label="Revoking" />}
      Revoke
    </button>
  );
}

/** One tool: the level it gets now, the person's setting for it, and why. */
function ToolPermissionRow({
  data,
  row,
  previous,
  rulesById,
}: {
  data: PermissionsData;
  row: ToolRow;
  /** The row above: a reason it already says is not repeated. */
  previous: ToolRow | undefined;
  rulesById: Map<string, PermissionsData['rules'][number]>;
}) {
  return (
    <tr
      data-tool={row.toolName}
      data-server={row.serverId}
      tabIndex={-1}
      aria-label={`${row.toolName} on ${serverName(data, row.serverId)}`}
    >
      <th scope="row" className="perm-tool">
        <code>{row.toolName}</code>
        <span className="perm-server">{serverName(data, row.serverId)}</span>
      </th>
      <td>
        <LevelBadge level={row.level} />
      </td>
      <td>
        <LevelControl
          row={row}
          rule={row.toolRuleId ? rulesById.get(row.toolRuleId) : undefined}
          governing={
            row.reason.kind === 'rule' && row.reason.ruleId && row.reason.ruleId !== row.toolRuleId
              ? rulesById.get(row.reason.ruleId)
              : undefined
          }
        />
      </td>
      <td className="perm-reason">
        <span className={`chip reason-${row.reason.kind}`}>{REASON_KIND[row.reason.kind] ?? row.reason.kind}</span>
        {/* A sentence the row above already says is not repeated (a screen reader still hears it). */}
        <SentenceOrSameAsAbove
          className="perm-reason-text"
          text={`${row.reason.detail}.`}
          same={previous !== undefined && sameReason(previous, row)}
        />
        {row.sessionGrant && <SessionGrantButton row={row} />}
      </td>
    </tr>
  );
}

function ToolsCard({ data }: { data: PermissionsData }) {
  const [query, setQuery] = useState('');
  const focus = useAppStore((s) => s.permissionsFocus);
  const clearFocus = useAppStore((s) => s.clearPermissionsFocus);
  const tableRef = useRef<HTMLTableElement>(null);
  // "Change" / "Open Permissions": land on the tool's row, unfiltered, scrolled into view and focused.
  useEffect(() => {
    if (!focus) return;
    const row = [...(tableRef.current?.querySelectorAll<HTMLTableRowElement>('tr[data-tool]') ?? [])].find(
      (tr) => tr.dataset.tool === focus.toolName && tr.dataset.server === focus.serverId,
    );
    if (row) {
      row.scrollIntoView({ block: 'center' });
      row.focus({ preventScroll: true });
    }
    clearFocus();
  }, [focus, clearFocus]);
  const rulesById = useMemo(() => new Map(data.rules.map((r) => [r.id, r])), [data.rules]);
  const needle = query.trim().toLowerCase();
  const rows = data.tools
    .filter(
      (t) => !needle || `${t.toolName} ${t.serverId} ${serverName(data, t.serverId)}`.toLowerCase().includes(needle),
    )
    .sort(
      (a, b) =>
        (a.serverId === 'local' ? 1 : 0) - (b.serverId === 'local' ? 1 : 0) ||
        a.serverId.localeCompare(b.serverId) ||
        a.toolName.localeCompare(b.toolName),
    );
  return (
    <section className="card" aria-labelledby="perm-tools">
      <div className="card-head-row">
        <h2 id="perm-tools" className="card-title">
          Tools
        </h2>
        <input
          type="search"
          className="input input-compact perm-search"
          placeholder="Filter tools"
          aria-label="Filter tools"
          value={query}
          onChange={(e) => setQuery(e.target.value)}
        />
      </div>
      <p className="card-note">
        The level a call gets right now, and why. Choose a level to set a rule for one tool; <em>Default</em> removes
        it.
      </p>
      <div className="table-scroll">
        <table className="table perm-table" aria-label="Tool permissions" ref={tableRef}>
          <thead>
            <tr>
              <th scope="col">Tool</th>
              <th scope="col">Level now</th>
              <th scope="col">Your setting</th>
              <th scope="col">Why</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((row, index) => (
              <ToolPermissionRow
                key={`${row.serverId}::${row.toolName}`}
                data={data}
                row={row}
                previous={index > 0 ? rows[index - 1] : undefined}
                rulesById={rulesById}
              />
            ))}
          </tbody>
        </table>
      </div>
      {rows.length === 0 && (
        <p className="muted">{data.tools.length === 0 ? 'No tools yet.' : `No tool matches “${query}”.`}</p>
      )}
    </section>
  );
}

type ReasonRow = { toolName: string; reason: { kind: string; detail: string } };

/** Two rows decided for the same reason, in the same words but for the tool's own name. */
function sameReason(a: ReasonRow | undefined, b: ReasonRow): boolean {
  const words = (row: ReasonRow): string => row.reason.detail.split(row.toolName).join('\u0000');
  return a !== undefined && a.reason.kind === b.reason.kind && words(a) === words(b);
}

function describeMatch(rule: PermissionRuleView, data: PermissionsData) {
  const m = rule.match;
  const tool = m.toolName ? (
    <code>{m.toolName}</code>
  ) : m.toolPattern ? (
    <code>{m.toolPattern}</code>
  ) : m.flagged ? (
    'every tool with poisoning flags'
  ) : (
    'every tool'
  );
  return (
    <>
      {tool}
      <span className="muted"> on </span>
      {m.serverId ? serverName(data, m.serverId) : 'any server'}
    </>
  );
}

function RulesCard({ data }: { data: PermissionsData }) {
  const remove = useAppStore((s) => s.removeRule);
  const busy = useAppStore((s) => s.permissionsBusy);
  const rules = [...data.rules].sort(
    (a, b) => Number(b.fromApproval) - Number(a.fromApproval) || b.createdAt - a.createdAt,
  );
  return (
    <section className="card" aria-labelledby="perm-rules">
      <h2 id="perm-rules" className="card-title">
        Stored rules
      </h2>
      <p className="card-note">
        “Always allow” answers from approval dialogs, and the levels you set above. An “always allow” is bound to the
        tool as it was: when the server changes the tool, the rule stops applying.
      </p>
      {rules.length === 0 ? (
        <p className="muted">No rules yet. Every tool follows its default.</p>
      ) : (
        <ul className="rule-list" role="list" aria-label="Stored rules">
          {rules.map((rule) => {
            const working = busy[`rule:${rule.id}`] === true;
            return (
              <li
                key={rule.id}
                className={`rule-row ${rule.stale ? 'is-stale' : ''}`}
                aria-label={`Rule ${rule.note ?? rule.id}`}
              >
                <LevelBadge level={rule.level} />
                <div className="rule-main">
                  <p className="rule-match">{describeMatch(rule, data)}</p>
                  <p className="rule-meta">
                    {rule.fromApproval ? (
                      <span className="chip chip-positive">always allow · from an approval</span>
                    ) : (
                      <span className="chip">set in Permissions</span>
                    )}
                    <span className="muted">{formatDateTime(rule.createdAt)}</span>
                  </p>
                  {rule.stale && <p className="rule-stale">{STALE_WORDS[rule.staleReason ?? 'tool_changed']}</p>}
                </div>
                <button
                  type="button"
                  className="btn btn-small btn-danger-ghost"
                  onClick={() => void remove(rule.id)}
                  disabled={working}
                >
                  {working && <Spinner label="Revoking" />}
                  Revoke
                </button>
              </li>
            );
          })}
        </ul>
      )}
    </section>
  );
}

export function PermissionsView() {
  const data = useAppStore((s) => s.permissions);
  const load = useAppStore((s) => s.permissionsLoad);
  const error = useAppStore((s) => s.permissionsError);
  const loadPermissions = useAppStore((s) => s.loadPermissions);
  const focusSeq = useAppStore((s) => s.permissionsFocusSeq);

  useEffect(() => {
    void loadPermissions();
  }, [loadPermissions]);

  let body;
  if (!data && load === 'error') {
    body = (
      <Callout
        tone="error"
        title="Could not load the permissions"
        actions={
          <button type="button" className="btn btn-small" onClick={() => void loadPermissions()}>
            Try again
          </button>
        }
      >
        {error}
      </Callout>
    );
  } else if (!data) {
    body = (
      <div className="loading-block">
        <Spinner label="Loading permissions" /> Loading permissions…
      </div>
    );
  } else {
    const asking = data.tools.filter((t) => t.level === 'ASK').length;
    const denied = data.tools.filter((t) => t.level === 'DENY').length;
    body = (
      <>
        <div className="perm-summary" role="status">
          <span>
            <strong>{data.tools.length}</strong> {pluralWord(data.tools.length, 'tool', 'tools')}
          </span>
          <span>
            <strong>{data.tools.length - asking - denied}</strong> allowed
          </span>
          <span>
            <strong>{asking}</strong> ask first
          </span>
          <span>
            <strong>{denied}</strong> denied
          </span>
          <span>
            <strong>{data.rules.filter((r) => r.fromApproval).length}</strong> “always allow”
          </span>
          <span>
            <strong>{data.sessionGrants.filter((g) => !g.stale).length}</strong> for this session
          </span>
        </div>
        {/* A new "land on this tool" remounts the card: its filter starts empty, so the row is there. */}
        <ToolsCard data={data} key={focusSeq} />
        <div className="perm-columns">
          <TrustCard data={data} />
          <RulesCard data={data} />
          <HostRulesCard data={data} />
        </div>
        <PinnedToolsSection data={data} />
      </>
    );
  }

  return (
    <section className="view" aria-labelledby="view-title">
      <ViewHeader title="Permissions" subtitle="Which tools run, which ask first, and which never run" />
      <div className="view-body perm-body">{body}</div>
    </section>
  );
}
