/**
 * Agents' sessions by name in Traces and History (issue 19, item 7): the real browser-mode host,
 * the stdio fixture server, and real SDK agents of both eras calling through the gateway. The
 * session filters list "<agent> · session 3f2a1b…" and "<agent> · 2026-07-28 calls" instead of
 * `agent:<uuid>:mcp-<uuid>`, with the raw id on hover; choosing one filters by it.
 *
 * Run: npx playwright test test/e2e/sessionLabels.spec.ts
 */
import type { Page } from '@playwright/test';
import { expect, test } from '@playwright/test';
import { connectAgent, connectModernAgent } from '../gateway/support.js';
import { BUILT_STDIO_FIXTURE, PROJECT_ROOT } from '../helpers/fixtures.js';
import { hostPerTest } from './support/hostPerTest.js';

test.describe.configure({ timeout: 120_000 });

const AGENT = 'Claude Code';

async function openView(page: Page, name: 'History' | 'Traces'): Promise<void> {
  await page
    .getByRole('navigation', { name: 'Main' })
    .getByRole('button', { name: new RegExp(`^${name}`) })
    .click();
  await expect(page.getByRole('heading', { name, level: 1 })).toBeVisible();
}

test.describe('agent sessions in the filters', () => {
  const ctx = hostPerTest('mh-e2e-session-labels-');

  test('Traces and History name the agent and a short session, the raw id on hover', async ({ page }) => {
    await ctx.bridge.ok('servers.save', {
      mode: 'create',
      config: {
        id: 'fx',
        name: 'Fixture',
        transport: 'stdio',
        command: process.execPath,
        args: [BUILT_STDIO_FIXTURE],
        cwd: PROJECT_ROOT,
        env: { FIXTURE_TOOLS: 'echo' },
      },
    });
    await expect
      .poll(
        async () => (await ctx.bridge.ok<Array<{ status: { state: string } }>>('servers.list', {}))[0]?.status.state,
        { timeout: 20_000 },
      )
      .toBe('ready');
    await ctx.bridge.ok('permissions.setToolLevel', { serverId: 'fx', toolName: 'echo', level: 'ALLOW' });
    const { token } = await ctx.bridge.ok<{ token: string }>('agents.create', {
      name: AGENT,
      visibility: { allServers: true, serverIds: [], localTools: false },
    });
    const url = new URL((await ctx.bridge.ok<{ gateway: { url: string } }>('agents.list', {})).gateway.url);

    const legacy = await connectAgent(url, token, 'e2e-legacy');
    const modern = await connectModernAgent(url, token, 'e2e-modern');
    try {
      expect((await legacy.callTool({ name: 'fx__echo', arguments: { text: 'from 2025' } })).isError).toBeFalsy();
      expect((await modern.callTool({ name: 'fx__echo', arguments: { text: 'from 2026' } })).isError).toBeFalsy();
      const legacySession =
        legacy.transport && 'sessionId' in legacy.transport ? String(legacy.transport.sessionId) : '';
      expect(legacySession).not.toBe('');

      await page.goto(ctx.host.url);
      await openView(page, 'Traces');
      const select = page.getByRole('search', { name: 'Filter traces' }).getByLabel('Session');
      const mcpOption = select.locator('option', { hasText: `${AGENT} · session ${legacySession.slice(0, 6)}…` });
      await expect(mcpOption).toHaveCount(1);
      await expect(mcpOption).toHaveAttribute('title', new RegExp(`^agent:[^:]+:mcp-${legacySession}$`));
      const modernOption = select.locator('option', { hasText: `${AGENT} · 2026-07-28 calls` });
      await expect(modernOption).toHaveAttribute('title', /^agent:[^:]+:stateless$/);
      // No option reads as a raw id.
      expect((await select.locator('option').allTextContents()).filter((t) => t.startsWith('agent:'))).toEqual([]);

      await select.selectOption({ label: `${AGENT} · 2026-07-28 calls` });
      await expect(page.locator('[data-trace-id]')).toHaveCount(1);

      await openView(page, 'History');
      await page.getByRole('button', { name: /^Session:/ }).click();
      const option = page.getByRole('button', {
        name: new RegExp(`^${AGENT} · session ${legacySession.slice(0, 6)}…`),
      });
      await expect(option).toHaveAttribute('title', new RegExp(`mcp-${legacySession}$`));
      await option.click();
      await expect(
        page.getByRole('button', { name: new RegExp(`^Session: ${AGENT} · session ${legacySession.slice(0, 6)}…`) }),
      ).toBeVisible();
      await expect(page.locator('[data-history-row]')).toHaveCount(1);
    } finally {
      await legacy.close();
      await modern.close();
    }
  });
});
