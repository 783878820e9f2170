/** Entry point: connect the bridge, build the store, feed it main's events, render the app. */
import './zodConfig.js'; // first: configures zod before any schema is built
import './styles/index.css';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { connectBridge } from './bridge/index.js';
import { bindBridge } from './state/bindBridge.js';
import { bindApprovalNotifications } from './state/bindNotifications.js';
import { createAppStore } from './state/store.js';
import { StoreContext } from './state/storeContext.js';
import { App } from './ui/App.js';

const client = connectBridge();
const store = createAppStore(client);
bindBridge(client, store);
bindApprovalNotifications(client, store, {
  Notification: typeof Notification === 'undefined' ? undefined : Notification,
  document,
  focusWindow: () => window.focus(),
});

const root = document.getElementById('root');
if (!root) throw new Error('index.html has no #root element');

createRoot(root).render(
  <StrictMode>
    <StoreContext.Provider value={store}>
      <App />
    </StoreContext.Provider>
  </StrictMode>,
);
