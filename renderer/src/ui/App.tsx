/**
 * The top level: a refused session shows only the "not authorized" screen (no data at all);
 * until main has answered, a start screen; then the shell with the sidebar and the current view.
 */
import { useAppStore } from '../state/useAppStore.js';
import { Notices } from './components/Notices.js';
import { Banners } from './layout/Banners.js';
import { Sidebar } from './layout/Sidebar.js';
import { ServerEditor } from './servers/form/ServerEditor.js';
import { ServersView } from './servers/ServersView.js';
import { NotAuthorized } from './views/NotAuthorized.js';
import { PlaceholderView } from './views/PlaceholderView.js';
import { SettingsView } from './views/SettingsView.js';
import { StartScreen } from './views/StartScreen.js';

function CurrentView() {
  const view = useAppStore((s) => s.view);
  switch (view) {
    case 'servers':
      return <ServersView />;
    case 'settings':
      return <SettingsView />;
    case 'tools':
      return (
        <PlaceholderView title="Tools" icon="tools">
          Every tool from every server in one searchable list, with a form to try a call.
        </PlaceholderView>
      );
    case 'approvals':
      return (
        <PlaceholderView title="Approvals" icon="approvals">
          Tool calls waiting for your decision, with their arguments, and the rules you saved.
        </PlaceholderView>
      );
    case 'traces':
      return (
        <PlaceholderView title="Traces" icon="traces">
          Each run as a timeline of model turns, tool calls and their results.
        </PlaceholderView>
      );
    case 'history':
      return (
        <PlaceholderView title="History" icon="history">
          Checkpoints of past calls, to inspect or replay without repeating a side effect.
        </PlaceholderView>
      );
  }
}

export function App() {
  const connection = useAppStore((s) => s.connection);
  const hasInfo = useAppStore((s) => s.info !== undefined);
  const editorOpen = useAppStore((s) => s.editor !== undefined);

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
      </div>
      <Notices />
      {editorOpen && <ServerEditor />}
    </div>
  );
}
