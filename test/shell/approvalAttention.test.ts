/** When an approval deserves an OS notification, what it says, and the pending count behind the badge. */
import { describe, expect, it } from 'vitest';
import type { ApprovalView } from '../../shared/contract.js';
import {
  PendingApprovals,
  fallbackAttention,
  pendingLabel,
  shouldNotify,
  trayTooltip,
  windowStateOf,
} from '../../electron/shell/approvalAttention.js';
import { approvalNotification } from '../../shared/approvalNotice.js';

function view(requestId: string, extra: Partial<ApprovalView> = {}): ApprovalView {
  return {
    requestId,
    sessionId: 's',
    userId: 'gui',
    toolName: 'write_file',
    serverId: 'files',
    args: { path: 'a.txt', content: 'secret-ish' },
    reason: 'asks',
    expiresAt: 1,
    ...extra,
  };
}

function probe(state: { destroyed?: boolean; visible?: boolean; minimized?: boolean; focused?: boolean }) {
  return {
    isDestroyed: () => state.destroyed ?? false,
    isVisible: () => state.visible ?? true,
    isMinimized: () => state.minimized ?? false,
    isFocused: () => state.focused ?? false,
  };
}

describe('windowStateOf / shouldNotify', () => {
  it('notifies unless the window is in front and focused', () => {
    expect(windowStateOf(undefined)).toBe('hidden');
    expect(windowStateOf(probe({ destroyed: true }))).toBe('hidden');
    expect(windowStateOf(probe({ visible: false }))).toBe('hidden');
    expect(windowStateOf(probe({ minimized: true }))).toBe('minimized');
    expect(windowStateOf(probe({ focused: false }))).toBe('visible');
    expect(windowStateOf(probe({ focused: true }))).toBe('focused');
    expect(['hidden', 'minimized', 'visible', 'focused'].map((s) => shouldNotify(s as never))).toEqual([
      true,
      true,
      true,
      false,
    ]);
  });
});

describe('PendingApprovals', () => {
  it('counts requests from the core events, once each, and forgets closed ones', () => {
    const pending = new PendingApprovals();
    expect(pending.apply('approval.requested', view('a'))).toEqual({ changed: true, requested: view('a') });
    expect(pending.apply('approval.requested', view('a'))).toEqual({ changed: false });
    pending.apply('approval.requested', view('b'));
    expect(pending.count).toBe(2);
    expect(pending.oldest()).toBe('a');
    expect(pending.apply('approval.closed', { requestId: 'a', outcome: 'answered' })).toEqual({
      changed: true,
      closed: 'a',
    });
    expect(pending.apply('approval.closed', { requestId: 'a', outcome: 'answered' })).toEqual({ changed: false });
    expect(pending.apply('servers.changed', { servers: [] })).toEqual({ changed: false });
    expect(pending.count).toBe(1);
    expect(pending.oldest()).toBe('b');
  });
});

describe('approvalNotification', () => {
  it('names the tool and its server, counts the others, and never shows the arguments', () => {
    const one = approvalNotification(view('a'), 1);
    expect(one.title).toBe('Approve write_file?');
    expect(one.body).toContain('server “files”');
    expect(one.body).not.toMatch(/more/);
    expect(JSON.stringify(one)).not.toContain('secret-ish');
    expect(approvalNotification(view('b', { serverId: 'local', toolName: 'run_command' }), 3).body).toMatch(
      /a local tool.*2 more wait\./,
    );
    expect(approvalNotification(view('c'), 2).body).toContain('1 more waits.');
  });

  it('names the agent when an agent asks through the gateway', () => {
    expect(approvalNotification(view('d', { userId: 'Claude Code' }), 1).body).toMatch(
      /^Agent “Claude Code” asks to run write_file/,
    );
    expect(approvalNotification(view('e'), 1).body).toMatch(/^A call to write_file/);
  });

  it('names the sandboxed server and the host it tried to reach (issue 29)', () => {
    const egress = approvalNotification(
      view('f', {
        userId: 'sandbox',
        toolName: '127.0.0.1:8080',
        egress: { host: '127.0.0.1', port: 8080, entry: '127.0.0.1:8080' },
      }),
      2,
    );
    expect(egress.title).toBe('Let files reach 127.0.0.1:8080?');
    expect(egress.body).toMatch(/^The sandboxed server “files” tried to reach 127\.0\.0\.1:8080.*1 more waits\./);
  });

  it('labels the badge and the tray by count', () => {
    expect(pendingLabel(0)).toBeUndefined();
    expect(pendingLabel(1)).toBe('1 approval waiting');
    expect(pendingLabel(4)).toBe('4 approvals waiting');
    expect(trayTooltip(0)).toBe('MiniHarness Desktop');
    expect(trayTooltip(2)).toBe('MiniHarness Desktop — 2 approvals waiting');
  });
});

describe('fallbackAttention (an OS notification failed or is unsupported)', () => {
  it('brings a hidden window’s dialog into view, flashes one that is out of sight, leaves a focused one alone', () => {
    expect(fallbackAttention('hidden')).toBe('show-and-flash');
    expect(fallbackAttention('minimized')).toBe('flash');
    expect(fallbackAttention('visible')).toBe('flash');
    expect(fallbackAttention('focused')).toBe('none');
  });
});
