/**
 * Without an OS sandbox run_command always asks — even under an ALLOW rule, and even after
 * "allow for this session". Through the real run_command tool (its guardrails) and the real SecureToolExecutor; the side effect is a file
 * the command writes, which must not exist before a person approved.
 */
import { existsSync, mkdirSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { SandboxInfo } from '../../electron/sandbox/commandSandbox.js';
import type { ApprovalAnswer, ApprovalCallback, ApprovalRequest } from '../../electron/security/approvals.js';
import { PermissionDeniedError } from '../../electron/security/errors.js';
import type { PermissionRule } from '../../electron/security/permissions.js';
import { LOCAL_SERVER_ID, PermissionDecisionEngine } from '../../electron/security/permissions.js';
import { SecureToolExecutor } from '../../electron/security/secureExecutor.js';
import { createRunCommandTool } from '../../electron/tools/runCommand.js';
import type { LocalTool } from '../../electron/tools/types.js';
import { MemoryRuleStore } from '../doubles/security/memoryRuleStore.js';

const NONE: SandboxInfo = { kind: 'none', reason: 'bubblewrap_missing', detail: 'no OS sandbox on this machine' };
const BWRAP: SandboxInfo = { kind: 'bwrap', detail: 'bubblewrap' };
const ALLOW_RUN: PermissionRule = {
  id: 'allow-run',
  level: 'ALLOW',
  match: { serverId: LOCAL_SERVER_ID, toolName: 'run_command' },
  createdAt: 1,
};

let root: string;
beforeEach(() => {
  root = realpathSync(mkdtempSync(join(tmpdir(), 'mh-mustask-')));
  mkdirSync(join(root, 'ws'));
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

function approver(...answers: ApprovalAnswer[]) {
  const requests: ApprovalRequest[] = [];
  const callback: ApprovalCallback = async (request) => {
    requests.push(request);
    const answer = answers.shift();
    if (!answer) throw new Error('unexpected approval request');
    return answer;
  };
  return { callback, requests };
}

/** Authorizes like the pipeline, then runs the tool only when authorized. */
async function callThroughExecutor(executor: SecureToolExecutor, tool: LocalTool, args: Record<string, unknown>) {
  await executor.authorize({
    subject: {
      toolName: tool.name,
      serverId: LOCAL_SERVER_ID,
      args,
      annotations: tool.annotations,
      serverTrusted: true,
    },
    sessionId: 's1',
    userId: 'u1',
    guardrails: () => tool.guardrails(args),
  });
  return tool.run(args);
}

function touch(file: string) {
  return { argv: [process.execPath, '-e', `require('node:fs').writeFileSync(${JSON.stringify(file)}, 'ran')`] };
}

describe('run_command without an OS sandbox', () => {
  it('asks even under an ALLOW rule, says it runs unsandboxed, and runs nothing when denied', async () => {
    const tool = createRunCommandTool({ roots: [join(root, 'ws')], sandbox: NONE });
    const marker = join(root, 'ws', 'denied');
    const asked = approver('deny');
    const executor = new SecureToolExecutor({
      engine: new PermissionDecisionEngine(new MemoryRuleStore([ALLOW_RUN]), [ALLOW_RUN]),
      requestApproval: asked.callback,
    });
    await expect(callThroughExecutor(executor, tool, touch(marker))).rejects.toBeInstanceOf(PermissionDeniedError);
    expect(asked.requests).toHaveLength(1);
    expect(asked.requests[0]?.reason).toMatch(/runs unsandboxed/);
    expect(existsSync(marker)).toBe(false);
  });

  it('asks for every call: neither "allow for this session" nor "always allow" stops it asking', async () => {
    const tool = createRunCommandTool({ roots: [join(root, 'ws')], sandbox: NONE });
    const asked = approver('allow-session', 'allow-always', 'allow-once');
    const store = new MemoryRuleStore();
    const executor = new SecureToolExecutor({
      engine: new PermissionDecisionEngine(store),
      requestApproval: asked.callback,
    });
    for (const name of ['one', 'two', 'three']) {
      const result = await callThroughExecutor(executor, tool, touch(join(root, 'ws', name)));
      expect(result.isError).toBe(false);
      expect(result.structuredContent).toMatchObject({ sandbox: 'none' });
    }
    expect(asked.requests).toHaveLength(3);
    expect(asked.requests.every((r) => /runs unsandboxed/.test(r.reason))).toBe(true);
  });

  it('a DENY rule still denies without asking', async () => {
    const deny: PermissionRule = { ...ALLOW_RUN, id: 'deny-run', level: 'DENY' };
    const tool = createRunCommandTool({ roots: [join(root, 'ws')], sandbox: NONE });
    const asked = approver();
    const executor = new SecureToolExecutor({
      engine: new PermissionDecisionEngine(new MemoryRuleStore([deny]), [deny]),
      requestApproval: asked.callback,
    });
    await expect(callThroughExecutor(executor, tool, touch(join(root, 'ws', 'x')))).rejects.toBeInstanceOf(
      PermissionDeniedError,
    );
    expect(asked.requests).toHaveLength(0);
  });
});

describe('run_command with an OS sandbox', () => {
  it('an ALLOW rule runs it without asking; the network is the hosts in Settings, not a call argument', async () => {
    const tool = createRunCommandTool({ roots: [join(root, 'ws')], sandbox: BWRAP });
    // Guardrails only (no spawn): this holds whether or not bwrap runs on this machine.
    expect(await tool.guardrails(touch('x'))).toEqual({ ok: true });
    // `network: true` (full network after an ask) is gone: the library filters every host.
    expect(await tool.guardrails({ ...touch('x'), network: true })).toMatchObject({ ok: false });

    const asked = approver();
    const executor = new SecureToolExecutor({
      engine: new PermissionDecisionEngine(new MemoryRuleStore([ALLOW_RUN]), [ALLOW_RUN]),
      requestApproval: asked.callback,
    });
    const plain = touch('x');
    await expect(
      executor.authorize({
        subject: {
          toolName: 'run_command',
          serverId: LOCAL_SERVER_ID,
          annotations: tool.annotations,
          serverTrusted: true,
          args: plain,
        },
        sessionId: 's',
        userId: 'u',
        guardrails: () => tool.guardrails(plain),
      }),
    ).resolves.toMatchObject({ level: 'ALLOW' });
    expect(asked.requests).toHaveLength(0);
  });
});
