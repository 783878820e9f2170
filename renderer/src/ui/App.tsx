/**
 * The top level: a refused session shows only the "not authorized" screen (no data at all);
 * until main has answered, a start screen; then the shell with the sidebar and the current view.
 */
import { useAppStore } from '../state/useAppStore.js';
import { ApprovalDialog } from './approvals/ApprovalDialog.js';
import { ApprovalsView } from './approvals/ApprovalsView.js';
import { ServerRequestDialog } from './serverRequests/ServerRequestDialog.js';
import { Notices } from './components/Notices.js';
import { Banners } from './layout/Banners.js';
import { Sidebar } from './layout/Sidebar.js';
import { ServerEditor } from './servers/form/ServerEditor.js';
import { ServersView } from './servers/ServersView.js';
import { NotAuthorized } from './views/NotAuthorized.js';
import { PermissionsView } from './permissions/PermissionsView.js';
import { SettingsView } from './settings/SettingsView.js';
import { StartScreen } from './views/StartScreen.js';
import { ToolsView } from './tools/ToolsView.js';
import { TracesView } from './traces/TracesView.js';
import { HistoryView } from './history/HistoryView.js';
import { ImportDialog } from './import/ImportDialog.js';
import { AgentsView } from './agents/AgentsView.js';
import { RunsView } from './runs/RunsView.js';
import { CatalogView } from './catalog/CatalogView.js';
import { PeopleView } from './people/PeopleView.js';

function CurrentView() {
  const view = useAppStore((s) => s.view);
  switch (view) {
    case 'servers':
      return <ServersView />;
    case 'settings':
      return <SettingsView />;
    case 'tools':
      return <ToolsView />;
    case 'approvals':
      return <ApprovalsView />;
    case 'permissions':
      return <PermissionsView />;
    case 'traces':
      return <TracesView />;
    case 'history':
      return <HistoryView />;
    case 'agents':
      return <AgentsView />;
    case 'runs':
      return <RunsView />;
    case 'catalog':
      return <CatalogView />;
    case 'people':
      return <PeopleView />;
  }
}

export function App() {
  const connection = useAppStore((s) => s.connection);
  const hasInfo = useAppStore((s) => s.info !== undefined);
  const editorOpen = useAppStore((s) => s.editor !== undefined);
  const importOpen = useAppStore((s) => s.importOpen);

  if (connection.status === 'unauthorized') return <NotAuthorized reason={connection.reason} />;
  if (!hasInfo) return <StartScreen />;

  return (
    <div className="app">
      <a className="skip-link" href="#content">
        Skip to content
      </a>
      <Sidebar />
      <div className="main">
        <Banners />
        <main id="content" className="content" tabIndex={-1}>
          <CurrentView />
        </main>
        <Notices />
      </div>
      {editorOpen && <ServerEditor />}
      {importOpen && <ImportDialog />}
      {/* What a server asks the person (elicitation, sampling), below approvals: a call waits for its approval first. */}
      <ServerRequestDialog />
      {/* Last: a call waiting for approval is asked about on top of everything, wherever the person is. */}
      <ApprovalDialog />
    </div>
  );
}
