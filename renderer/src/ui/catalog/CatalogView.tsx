/**
 * The Catalog (issue 30): servers published in the MCP Registries of the settings (the official
 * one by default), searched and browsed; each entry with its title, description, publisher,
 * version, transports, packages and remotes, links, and whether it is installed. A registry that
 * failed, answered garbage or is shown from the cache says so in a sentence above the list; a
 * malformed entry is listed with its problem beside the others. Install opens a form with exactly
 * what the entry needs; updates of installed entries show what changes before they are applied.
 */
import { useEffect, useState } from 'react';
import type { CatalogEntryView, RegistryStateView } from '../../../../shared/contract.js';
import { useAppStore } from '../../state/useAppStore.js';
import { Callout } from '../components/Callout.js';
import { Icon } from '../components/Icon.js';
import { Spinner } from '../components/Spinner.js';
import { ViewHeader } from '../components/ViewHeader.js';
import { InstallDialog } from './InstallDialog.js';
import { RegistriesCard } from './RegistriesCard.js';
import { UpdateDialog } from './UpdateDialog.js';

function age(at: number, now: number): string {
  const minutes = Math.max(0, Math.round((now - at) / 60_000));
  if (minutes < 1) return 'just now';
  if (minutes < 90) return `${minutes} min ago`;
  const hours = Math.round(minutes / 60);
  return hours < 48 ? `${hours} h ago` : `${Math.round(hours / 24)} days ago`;
}

function RegistryNote({ state, now }: { state: RegistryStateView; now: number }) {
  if (state.error) {
    const cached = state.fetchedAt !== undefined ? ` Showing what it answered ${age(state.fetchedAt, now)}.` : '';
    return (
      <Callout tone="warning" title={`Registry ${state.url}`}>
        {state.error.message}
        {cached}
      </Callout>
    );
  }
  if (state.truncated)
    return <Callout tone="info">{state.url} has more entries than are shown; search to narrow the list.</Callout>;
  return null;
}

function publisherOf(name: string): string {
  return name.split('/')[0] ?? name;
}

function safeLink(url: string | undefined): string | undefined {
  return url && /^https?:\/\//.test(url) ? url : undefined;
}

function EntryCard({ entry }: { entry: CatalogEntryView }) {
  const openInstall = useAppStore((s) => s.openCatalogInstall);
  if (!entry.ok)
    return (
      <li className="catalog-entry catalog-entry-bad" data-entry={entry.name ?? `#${entry.index}`}>
        <p className="catalog-title">{entry.name ?? `Entry ${entry.index + 1}`}</p>
        <p className="field-error">This entry is malformed and cannot be shown: {entry.problem}</p>
      </li>
    );
  const { server } = entry;
  const repo = safeLink(server.repository?.url);
  const site = safeLink(server.websiteUrl);
  return (
    <li className="catalog-entry" data-entry={server.name}>
      <div className="catalog-entry-head">
        <p className="catalog-title">{server.title ?? server.name}</p>
        <span className="badge">v{server.version}</span>
        {entry.official?.status === 'deprecated' && <span className="chip chip-warning">deprecated</span>}
        {entry.installed.length > 0 && (
          <span className="chip chip-positive" title={`Installed as ${entry.installed.join(', ')}`}>
            installed
          </span>
        )}
      </div>
      <p className="catalog-description">{server.description}</p>
      <p className="catalog-meta">
        <span>{server.name}</span> · publisher <span>{publisherOf(server.name)}</span>
        {repo && (
          <>
            {' · '}
            <a href={repo} target="_blank" rel="noreferrer noopener">
              repository
            </a>
          </>
        )}
        {site && (
          <>
            {' · '}
            <a href={site} target="_blank" rel="noreferrer noopener">
              website
            </a>
          </>
        )}
      </p>
      {entry.options.length === 0 && <p className="field-hint">No package or remote: see its website to set it up.</p>}
      <ul className="catalog-options">
        {entry.options.map((o) => (
          <li key={`${o.option.kind}${o.option.index}`}>
            <span className="chip">{o.option.kind}</span> <code>{o.label}</code>{' '}
            {o.installable ? (
              <button
                type="button"
                className="btn btn-small"
                onClick={() => void openInstall(entry.registry, server.name, o.option)}
              >
                Install
              </button>
            ) : (
              <span className="catalog-blocker">{o.blocker}</span>
            )}
          </li>
        ))}
      </ul>
    </li>
  );
}

function UpdatesList() {
  const updates = useAppStore((s) => s.catalogUpdates);
  const open = useAppStore((s) => s.openCatalogUpdate);
  if (updates.length === 0) return null;
  return (
    <section aria-label="Updates available" className="catalog-updates">
      <h2>Updates available</h2>
      <ul>
        {updates.map((u) => (
          <li key={u.serverId}>
            {u.serverId}: {u.installed} → {u.latest}{' '}
            <button type="button" className="btn btn-small" onClick={() => void open(u.serverId)}>
              Review update
            </button>
          </li>
        ))}
      </ul>
    </section>
  );
}

export function CatalogView() {
  const entries = useAppStore((s) => s.catalogEntries);
  const registries = useAppStore((s) => s.catalogRegistries);
  const loading = useAppStore((s) => s.catalogLoading);
  const failure = useAppStore((s) => s.catalogFailure);
  const search = useAppStore((s) => s.searchCatalog);
  const loadUpdates = useAppStore((s) => s.loadCatalogUpdates);
  const installOpen = useAppStore((s) => s.catalogInstall !== undefined);
  const updateOpen = useAppStore((s) => s.catalogUpdate !== undefined);
  const lastSearch = useAppStore((s) => s.catalogSearchText);
  const [text, setText] = useState(lastSearch);
  const [now] = useState(() => Date.now());

  useEffect(() => {
    void search(text);
    void loadUpdates();
    // Only on opening the view; later searches are the person's.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, []);

  const fetchedAt = registries.map((r) => r.fetchedAt).filter((t): t is number => t !== undefined);
  return (
    <section aria-labelledby="view-title" className="catalog-view">
      <ViewHeader
        title="Catalog"
        subtitle="Servers published in MCP Registries. An install starts sandboxed, untrusted, its tools asking."
        actions={
          <button type="button" className="btn" onClick={() => void search(text, true)} disabled={loading}>
            <Icon name="refresh" size={16} /> Refresh
          </button>
        }
      />
      <form
        role="search"
        className="catalog-search"
        onSubmit={(e) => {
          e.preventDefault();
          void search(text);
        }}
      >
        <input
          type="search"
          aria-label="Search the catalog"
          placeholder="Search by name"
          value={text}
          onChange={(e) => setText(e.target.value)}
        />
        <button type="submit" className="btn btn-primary" disabled={loading}>
          Search
        </button>
        {loading && <Spinner label="Asking the registries" />}
      </form>
      {failure && <Callout tone="error">The catalog could not be searched: {failure}</Callout>}
      {registries.map((r) => (
        <RegistryNote key={r.url} state={r} now={now} />
      ))}
      {fetchedAt.length > 0 && (
        <p className="field-hint" data-testid="catalog-age">
          Fetched {age(Math.min(...fetchedAt), now)}
          {registries.some((r) => r.fromCache) ? ' (from the cache on disk)' : ''}.
        </p>
      )}
      <UpdatesList />
      {!loading && entries.length === 0 && !failure && <p>No server matches.</p>}
      <ul className="catalog-list" aria-label="Catalog entries">
        {entries.map((entry, i) => (
          <EntryCard key={`${entry.registry} ${entry.ok ? entry.server.name : `bad${i}`}`} entry={entry} />
        ))}
      </ul>
      <RegistriesCard />
      {installOpen && <InstallDialog />}
      {updateOpen && <UpdateDialog />}
    </section>
  );
}
