/**
 * The workspace is outside the data folder, and run_command cannot see the data folder — through
 * the real host: its CLI refuses an overlapping workspace at start, app.info reports the sandbox,
 * and `cat <data>/secrets.json` run through the bridge (approved by a person) returns no secret.
 */
import { spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ApprovalView, AppInfo, CallOutcome } from '../../shared/contract.js';
import { AppError } from '../../electron/core/errors.js';
import { prepareWorkspace } from '../../electron/core/workspace.js';
import { probeSandbox } from '../../electron/sandbox/commandSandbox.js';
import { defaultWorkspaceDir } from '../../electron/core/dataDir.js';
import { PROJECT_ROOT, waitFor } from '../helpers/fixtures.js';
import { BridgeClient, startTestHost } from '../web/host.js';

const sandbox = await probeSandbox();

let base: string;
beforeEach(() => {
  // Not under /tmp, which the sandbox hides anyway: the data folder's own mask must do it.
  base = realpathSync(mkdtempSync(join(existsSync('/var/tmp') ? '/var/tmp' : tmpdir(), 'mh-ws-')));
});
afterEach(() => rmSync(base, { recursive: true, force: true }));

function overlapCode(workspace: string, data: string): string | undefined {
  try {
    prepareWorkspace(workspace, data);
    return undefined;
  } catch (error) {
    return error instanceof AppError ? error.code : 'other';
  }
}

describe('the workspace location', () => {
  it('is refused when it is the data folder, inside it, contains it, or links into it', () => {
    const data = join(base, 'data');
    mkdirSync(data);
    symlinkSync(data, join(base, 'link-to-data'));
    expect(overlapCode(data, data)).toBe('workspace_overlaps_data');
    expect(overlapCode(join(data, 'workspace'), data)).toBe('workspace_overlaps_data');
    expect(overlapCode(join(data, 'a', '..', 'b'), data)).toBe('workspace_overlaps_data');
    expect(overlapCode(base, data)).toBe('workspace_overlaps_data');
    expect(overlapCode(join(base, 'link-to-data', 'ws'), data)).toBe('workspace_overlaps_data');
    expect(existsSync(join(data, 'workspace'))).toBe(false); // nothing was created
    // Beside it is fine, and is created.
    expect(overlapCode(join(base, 'workspace'), data)).toBeUndefined();
    expect(existsSync(join(base, 'workspace'))).toBe(true);
  });

  it('defaults to ~/MiniHarness/workspace, outside the data folder', async () => {
    const { defaultDataDir } = await import('../../electron/core/dataDir.js');
    const ws = defaultWorkspaceDir();
    expect(ws.endsWith(join('MiniHarness', 'workspace'))).toBe(true);
    expect(ws.startsWith(defaultDataDir())).toBe(false);
    expect(defaultDataDir().startsWith(ws)).toBe(false);
  });

  it('browser mode stops at start with a clear message when --workspace is inside --data-dir', () => {
    const data = join(base, 'data');
    const run = spawnSync(
      process.execPath,
      [
        '--import',
        'tsx',
        join(PROJECT_ROOT, 'electron', 'web', 'cli.ts'),
        '--port',
        '0',
        '--data-dir',
        data,
        '--workspace',
        join(data, 'workspace'),
      ],
      {
        cwd: PROJECT_ROOT,
        env: { ...process.env, MINIHARNESS_SECRET_STORE: 'file' },
        encoding: 'utf8',
        timeout: 60_000,
      },
    );
    expect(run.status).toBe(2);
    expect(run.stderr).toMatch(/MiniHarness: The workspace ".*workspace" is inside the data folder/);
    expect(run.stdout).not.toContain('http://');
    expect(existsSync(join(data, 'workspace'))).toBe(false);
  });
});

describe('run_command through the host', () => {
  it('app.info reports the sandbox; a command reading the data folder gets nothing', async (context) => {
    const running = await startTestHost(base);
    const client = await BridgeClient.connect(running.host.port);
    try {
      const info = await client.call('app.info', {});
      expect(info).toMatchObject({ ok: true, result: { sandbox: { kind: sandbox.kind } } });
      expect((info.ok ? (info.result as AppInfo) : undefined)?.sandbox.detail).toBe(sandbox.detail);
      if (sandbox.kind !== 'bwrap') {
        console.warn(`[run_command through the host] the data-folder read is skipped: ${sandbox.detail}`);
        context.skip();
        return;
      }
      const secret = `host-secret-${randomUUID()}`;
      writeFileSync(join(running.dataDir, 'planted-secret.txt'), secret);
      writeFileSync(join(running.workspaceDir, 'inside.txt'), 'inside');

      const mark = client.events.length;
      const reply = client.call('tools.call', {
        name: 'run_command',
        serverId: 'local',
        args: { argv: ['cat', join(running.dataDir, 'planted-secret.txt'), 'inside.txt'] },
        callId: `call-${randomUUID()}`,
      });
      await waitFor(() => client.events.slice(mark).some((e) => e.event === 'approval.requested'));
      const request = client.events.slice(mark).find((e) => e.event === 'approval.requested')?.payload as ApprovalView;
      await client.call('approvals.answer', { requestId: request.requestId, answer: 'allow-once' });
      const result = await reply;
      expect(result.ok).toBe(true);
      const outcome = result.ok ? (result.result as CallOutcome) : undefined;
      const structured = outcome?.result.structuredContent as {
        stdout: string;
        stderr: string;
        sandbox: string;
        cwd: string;
      };
      expect(structured.sandbox).toBe('bwrap');
      expect(structured.cwd).toBe(realpathSync(running.workspaceDir));
      expect(structured.stdout).toBe('inside'); // the workspace file, and nothing of the data folder
      expect(structured.stderr).toContain('No such file or directory');
      expect(JSON.stringify(outcome)).not.toContain(secret);
    } finally {
      client.close();
      await running.close();
    }
  });
});
