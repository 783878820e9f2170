/**
 * Browser mode's page notifications for approvals (state/bindNotifications.ts) against a double
 * of the Web Notification API: only after the person allowed them, only while the page is in the
 * background, never in the desktop app (its main process notifies), never with the arguments; a
 * click brings the page forward on the request, and a closed request takes its notification away.
 * Also the desktop's 'approval.show' and 'settings.changed' events.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { AppInfo, ApprovalView } from '../../shared/contract.js';
import { bindBridge } from '../../renderer/src/state/bindBridge.js';
import type { PageNotification } from '../../renderer/src/state/bindNotifications.js';
import { bindApprovalNotifications, shouldNotifyPage } from '../../renderer/src/state/bindNotifications.js';
import { createAppStore } from '../../renderer/src/state/store.js';
import { FakeClient } from '../doubles/renderer/fakeClient.js';

class FakeNotification implements PageNotification {
  static permission: NotificationPermission = 'granted';
  static made: FakeNotification[] = [];
  onclick: ((event: Event) => void) | null = null;
  closed = false;
  constructor(
    readonly title: string,
    readonly options: { body: string; tag: string },
  ) {
    FakeNotification.made.push(this);
  }
  close(): void {
    this.closed = true;
  }
}

const page = { visibilityState: 'hidden' as DocumentVisibilityState, focused: false, hasFocus: () => page.focused };
let focusCalls = 0;

function approval(requestId: string, serverId = 'fs'): ApprovalView {
  return {
    requestId,
    sessionId: 'gui',
    userId: 'gui',
    toolName: 'write_file',
    serverId,
    args: { content: 'token-123' },
    reason: 'asks',
    expiresAt: Date.now() + 60_000,
  };
}

const info = (mode: AppInfo['mode']) =>
  ({
    mode,
    version: '0',
    secretBackend: { kind: 'file', secure: false },
    sandbox: {},
    warnings: [],
  }) as unknown as AppInfo;

describe('approval notifications in the page', () => {
  let client: FakeClient;
  let store: ReturnType<typeof createAppStore>;
  let unbind: Array<() => void>;

  beforeEach(() => {
    client = new FakeClient();
    store = createAppStore(client);
    FakeNotification.permission = 'granted';
    FakeNotification.made = [];
    page.visibilityState = 'hidden';
    page.focused = false;
    focusCalls = 0;
    unbind = [
      bindBridge(client, store),
      bindApprovalNotifications(client, store, {
        Notification: FakeNotification,
        document: page,
        focusWindow: () => void focusCalls++,
      }),
    ];
    store.setState({ info: info('browser') });
  });
  afterEach(() => unbind.forEach((u) => u()));

  it('notifies a background page, without the arguments, and a click opens the request', () => {
    client.emit('approval.requested', approval('a'));
    expect(FakeNotification.made).toHaveLength(1);
    const shown = FakeNotification.made[0]!;
    expect(shown.title).toBe('Approve write_file?');
    expect(shown.options.tag).toBe('a');
    expect(JSON.stringify(shown)).not.toContain('token-123');

    // Set aside with "Decide later": the click opens the Approvals view, where it is listed.
    store.getState().deferApproval('a');
    shown.onclick?.(new Event('click'));
    expect(focusCalls).toBe(1);
    expect(store.getState().view).toBe('approvals');
    expect(shown.closed).toBe(true);
  });

  it('takes the notification away when the request closes', () => {
    client.emit('approval.requested', approval('a'));
    client.emit('approval.closed', { requestId: 'a', outcome: 'expired' });
    expect(FakeNotification.made[0]?.closed).toBe(true);
  });

  it('stays quiet in front, before permission, and in the desktop app', () => {
    page.visibilityState = 'visible';
    page.focused = true;
    client.emit('approval.requested', approval('front'));
    page.visibilityState = 'hidden';
    page.focused = false;
    FakeNotification.permission = 'default';
    client.emit('approval.requested', approval('not-allowed'));
    FakeNotification.permission = 'granted';
    store.setState({ info: info('electron') });
    client.emit('approval.requested', approval('desktop'));
    expect(FakeNotification.made).toEqual([]);
  });

  it('decides by mode, permission and whether the page is in front', () => {
    expect(shouldNotifyPage({ mode: 'browser', permission: 'granted', hidden: false, focused: false })).toBe(true);
    expect(shouldNotifyPage({ mode: 'browser', permission: 'granted', hidden: true, focused: false })).toBe(true);
    expect(shouldNotifyPage({ mode: 'browser', permission: 'granted', hidden: false, focused: true })).toBe(false);
    expect(shouldNotifyPage({ mode: 'browser', permission: 'denied', hidden: true, focused: false })).toBe(false);
    expect(shouldNotifyPage({ mode: undefined, permission: 'granted', hidden: true, focused: false })).toBe(false);
  });
});

describe('desktop events in the renderer', () => {
  it('approval.show opens the Approvals view for a request set aside, and leaves the dialog to the others', () => {
    const client = new FakeClient();
    const store = createAppStore(client);
    const unbind = bindBridge(client, store);
    client.emit('approval.requested', approval('a'));
    client.emit('approval.show', { requestId: 'a' });
    expect(store.getState().view).toBe('servers');
    store.getState().deferApproval('a');
    client.emit('approval.show', { requestId: 'a' });
    expect(store.getState().view).toBe('approvals');
    unbind();
  });

  it('settings.changed replaces the settings the view shows', () => {
    const client = new FakeClient();
    const store = createAppStore(client);
    const unbind = bindBridge(client, store);
    const settings = {
      roots: [{ path: '/w', workspace: true }],
      gateway: { enabled: true, port: 47813 },
      agentIdleMinutes: 10,
      approvalTimeoutSeconds: 120,
      keepRunningOnClose: false,
      commandSandbox: { read: [], write: [], hosts: ['example.com:443'] },
    };
    client.emit('settings.changed', { settings });
    expect(store.getState().settings).toEqual(settings);
    unbind();
  });
});
