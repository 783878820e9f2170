/**
 * An audit log that cannot be written (a full disk, a read-only folder; here a directory where
 * the file should be) loses its lines, tells the operator once, and never leaves a request unanswered.
 */
import { createHash } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scratchDir } from '../helpers/fixtures.js';
import { BridgeClient } from '../web/host.js';
import type { TestServe } from './serveHarness.js';
import { startTestServe } from './serveHarness.js';

const VIEWER_TOKEN = 'audit-viewer-token-0123456789abcdef';

describe('miniharness serve: an audit log that cannot be written', () => {
  const scratch = scratchDir();
  let serve: TestServe;

  beforeAll(async () => {
    // The data folder exists before the serve starts, with audit.jsonl a directory: every append fails (EISDIR).
    mkdirSync(join(scratch.dir, 'data', 'audit.jsonl'), { recursive: true });
    serve = await startTestServe(scratch.dir, undefined, {
      apiTokens: [{ name: 'dash', role: 'viewer', sha256: createHash('sha256').update(VIEWER_TOKEN).digest('hex') }],
    });
  });
  afterAll(async () => {
    await serve.serving.shutdown();
    scratch.cleanup();
  });

  it('answers the request whose refusal it could not record, and tells the operator once', async () => {
    const viewer = await BridgeClient.connect(serve.port, { token: VIEWER_TOKEN, bearer: true });
    try {
      for (let i = 0; i < 2; i++)
        expect(await viewer.call('servers.save', {})).toMatchObject({ ok: false, error: { code: 'role_forbidden' } });
      expect(serve.lines.filter((line) => line.includes('cannot write the audit log'))).toEqual([
        expect.stringMatching(/audit\.jsonl \(EISDIR\); entries are lost until it can\.$/) as string,
      ]);
    } finally {
      viewer.close();
    }
  });
});
