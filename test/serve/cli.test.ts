/**
 * `miniharness <command>` (electron/cli/commands.ts) against running instances: `miniharness
 * serve` with an API token (its role applies), and the browser-mode host (`npm run web`) with its
 * token. Calls go through the pipeline as "CLI" (an approval waits for a person; History names the
 * CLI); errors are sentences; exit codes 0, 1 and 2.
 */
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApprovalView } from '../../shared/contract.js';
import { runClientCommand } from '../../electron/cli/commands.js';
import { scratchDir, waitFor } from '../helpers/fixtures.js';
import type { RunningHost } from '../web/host.js';
import { BridgeClient, TEST_TOKEN, startTestHost } from '../web/host.js';
import type { TestServe } from './serveHarness.js';
import { startTestServe } from './serveHarness.js';

const ADMIN_TOKEN = 'cli-admin-token-0123456789abcdef';
const VIEWER_TOKEN = 'cli-viewer-token-0123456789abcdef';
const sha256 = (text: string): string => createHash('sha256').update(text).digest('hex');

async function cli(args: string[], env: Record<string, string>): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const [command, ...rest] = args;
  const code = await runClientCommand(
    command,
    rest,
    env,
    (t) => (out += t),
    (t) => (err += t),
  );
  return { code, out, err };
}

describe('miniharness CLI against miniharness serve (API tokens)', () => {
  const scratch = scratchDir();
  let serve: TestServe;
  let env: Record<string, string>;

  beforeAll(async () => {
    serve = await startTestServe(scratch.dir, undefined, {
      apiTokens: [
        { name: 'ops', role: 'admin', sha256: sha256(ADMIN_TOKEN) },
        { name: 'dash', role: 'viewer', sha256: sha256(VIEWER_TOKEN) },
      ],
    });
    env = { MINIHARNESS_URL: serve.url, MINIHARNESS_TOKEN: ADMIN_TOKEN };
  });
  afterAll(async () => {
    await serve.serving.shutdown();
    scratch.cleanup();
  });

  it('lists tools and servers, as text and as --json', async () => {
    const tools = await cli(['tools', 'list'], env);
    expect(tools).toMatchObject({ code: 0, err: '' });
    expect(tools.out).toMatch(/^local\twrite_file\t/m);
    const json = await cli(['servers', 'list', '--json'], env);
    expect([json.code, JSON.parse(json.out)]).toEqual([0, []]);
  });

  it('a call waits for an approver, runs through the pipeline as the CLI, and History exports it', async () => {
    const approver = await BridgeClient.connect(serve.port, { token: ADMIN_TOKEN });
    try {
      const call = cli(
        ['call', 'local', 'write_file', '--args', '{"path":"cli.txt","content":"from the CLI"}', '--json'],
        env,
      );
      await waitFor(() => approver.events.some((e) => e.event === 'approval.requested'));
      const listed = await cli(['approvals', 'list', '--json'], env);
      const [pending] = JSON.parse(listed.out) as ApprovalView[];
      expect(pending).toMatchObject({ userId: 'CLI (ops)', toolName: 'write_file' });
      expect(await cli(['approvals', 'decide', pending?.requestId ?? '', 'allow-once'], env)).toMatchObject({
        code: 0,
        out: 'Decided: allow-once.\n',
      });
      const done = await call;
      expect(done.code).toBe(0);
      const outcome = JSON.parse(done.out) as { callId: string; result: { isError: boolean } };
      expect(outcome.result.isError).toBe(false);
      const history = await cli(['history', 'export'], env);
      const records = history.out
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as { callId: string; userId: string });
      expect(records.find((r) => r.callId === outcome.callId)?.userId).toBe('CLI (ops)');
    } finally {
      approver.close();
    }
  });

  it('a role is a role from the command line too: the viewer may not call, exit 1 with a sentence', async () => {
    const refused = await cli(['call', 'local', 'read_file', '--args', '{"path":"cli.txt"}'], {
      ...env,
      MINIHARNESS_TOKEN: VIEWER_TOKEN,
    });
    expect(refused).toEqual({
      code: 1,
      out: '',
      err: 'miniharness: Your role (viewer) does not allow tools.call. (role_forbidden)\n',
    });
  });

  it('a tool error exits 1; a wrong token, usage and bad JSON are sentences', async () => {
    const failed = await cli(['call', 'local', 'read_file', '--args', '{"path":"missing.txt"}'], env);
    expect(failed.code).toBe(1);
    expect(await cli(['servers', 'list'], { ...env, MINIHARNESS_TOKEN: 'wrong-token-0123456789abcdef' })).toMatchObject(
      {
        code: 1,
        err: expect.stringMatching(/refused the token \(HTTP 401\); check MINIHARNESS_TOKEN\./) as string,
      },
    );
    expect(await cli(['call', 'local'], env)).toMatchObject({
      code: 2,
      err: expect.stringMatching(/call takes a server id and a tool name/) as string,
    });
    expect(await cli(['call', 'local', 'read_file', '--args', '{'], env)).toMatchObject({
      code: 2,
      err: 'miniharness: --args is not valid JSON.\n',
    });
    expect(await cli(['servers', 'list'], {})).toMatchObject({
      code: 2,
      err: expect.stringMatching(/set MINIHARNESS_URL/) as string,
    });
  });
});

describe('miniharness CLI against the browser-mode host (npm run web)', () => {
  const scratch = scratchDir();
  let running: RunningHost;
  beforeAll(async () => {
    running = await startTestHost(scratch.dir);
  });
  afterAll(async () => {
    await running.close();
    scratch.cleanup();
  });

  it('its calls are the CLI’s in History, not the page’s', async () => {
    const env = { MINIHARNESS_URL: running.host.url, MINIHARNESS_TOKEN: TEST_TOKEN };
    const done = await cli(['call', 'local', 'list_directory', '--args', '{"path":"."}', '--json'], env);
    expect(done.code).toBe(0);
    const { callId } = JSON.parse(done.out) as { callId: string };
    const history = await cli(['history', 'export'], env);
    expect(history.out).toContain(`"callId":"${callId}"`);
    const record = history.out.split('\n').find((l) => l.includes(callId)) ?? '';
    expect((JSON.parse(record) as { userId: string }).userId).toBe('CLI');
  });
});
