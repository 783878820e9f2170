/** The Servers view: header actions, the list, and the selected server's detail beside it. */
import { selectSelectedServer } from '../../state/selectors.js';
import { useAppStore } from '../../state/useAppStore.js';
import { Callout } from '../components/Callout.js';
import { EmptyState } from '../components/EmptyState.js';
import { Icon } from '../components/Icon.js';
import { Spinner } from '../components/Spinner.js';
import { ViewHeader } from '../components/ViewHeader.js';
import { ServerDetail } from './ServerDetail.js';
import { ServerList } from './ServerList.js';
import { serverIdOf } from '../../lib/serverView.js';

function Subtitle() {
  const total = useAppStore((s) => s.servers.length);
  const ready = useAppStore((s) => s.servers.filter((v) => v.status.state === 'ready').length);
  const failing = useAppStore((s) => s.servers.filter((v) => v.status.state === 'error').length);
  if (total === 0) return <>Connect local and remote MCP servers</>;
  return (
    <>
      {total} {total === 1 ? 'server' : 'servers'} · {ready} ready
      {failing > 0 && <span className="text-error"> · {failing} with errors</span>}
    </>
  );
}

export function ServersView() {
  const load = useAppStore((s) => s.serversLoad);
  const error = useAppStore((s) => s.serversError);
  const count = useAppStore((s) => s.servers.length);
  const selected = useAppStore(selectSelectedServer);
  const discovering = useAppStore((s) => s.discovering);
  const discoverAll = useAppStore((s) => s.discoverAll);
  const serverTab = useAppStore((s) => s.serverTab);
  const openEditor = useAppStore((s) => s.openEditor);
  const loadServers = useAppStore((s) => s.loadServers);
  const openImport = useAppStore((s) => s.openImport);

  const addButton = (
    <button type="button" className="btn btn-primary" onClick={() => openEditor({ mode: 'create' })}>
      <Icon name="plus" />
      Add server
    </button>
  );

  let body;
  if (load === 'error' && count === 0) {
    body = (
      <Callout
        tone="error"
        title="Could not load the servers"
        actions={
          <button type="button" className="btn btn-small" onClick={() => void loadServers()}>
            Try again
          </button>
        }
      >
        {error}
      </Callout>
    );
  } else if (load !== 'ready' && count === 0) {
    body = (
      <div className="loading-block">
        <Spinner label="Loading servers" /> Loading servers…
      </div>
    );
  } else if (count === 0) {
    body = (
      <EmptyState icon="servers" title="No servers yet" action={addButton}>
        Add a local program that speaks MCP over stdio, or a remote Streamable HTTP endpoint. MiniHarness connects to it
        and shows what it negotiated and which tools it offers.
      </EmptyState>
    );
  } else {
    body = (
      // Resources and Prompts take the whole width (their list and panel need it, as in the Inspector).
      <div
        className={`master-detail ${selected ? 'has-selection' : ''} ${selected && (serverTab === 'resources' || serverTab === 'prompts') ? 'wide-tab' : ''}`}
      >
        <ServerList />
        {selected ? (
          <ServerDetail key={serverIdOf(selected)} view={selected} />
        ) : (
          <div className="detail-placeholder">
            <EmptyState icon="servers" title="Select a server">
              Its status, what it negotiated, its tools and its log appear here.
            </EmptyState>
          </div>
        )}
      </div>
    );
  }

  return (
    <section className="view view-fill" aria-labelledby="view-title">
      <ViewHeader
        title="Servers"
        subtitle={<Subtitle />}
        actions={
          <>
            <button
              type="button"
              className="btn"
              onClick={() => void discoverAll()}
              disabled={discovering || count === 0}
            >
              {discovering ? <Spinner label="Discovering" /> : <Icon name="refresh" />}
              Discover all
            </button>
            <button type="button" className="btn" onClick={openImport}>
              <Icon name="up" />
              Import…
            </button>
            {addButton}
          </>
        }
      />
      <div className="view-body view-body-fill">{body}</div>
    </section>
  );
}
