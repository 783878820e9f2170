import { pathToFileURL } from 'node:url';
import { describe, expect, it, vi } from 'vitest';
import type { DispatchResult } from '../../shared/bridge.js';
import type { AppLocation } from '../../electron/shell/appLocation.js';
import { resolveAppLocation } from '../../electron/shell/appLocation.js';
import { createEventForwarder, createInvokeHandler } from '../../electron/shell/ipcHandler.js';
import type { SenderInfo } from '../../electron/shell/sender.js';
import { FORBIDDEN_SENDER, checkSender } from '../../electron/shell/sender.js';

const INDEX = '/app/out/renderer/index.html';
const PAGE = pathToFileURL(INDEX).href;
const fileLocation = resolveAppLocation({ isPackaged: true, devServerUrl: undefined, rendererIndexFile: INDEX });
const devLocation: AppLocation = { kind: 'dev', url: 'http://localhost:5173/', origin: 'http://localhost:5173' };

const good: SenderInfo = { url: `${PAGE}#/servers`, origin: 'file://', isMainFrame: true, fromAppWindow: true };
const goodDev: SenderInfo = {
  url: 'http://localhost:5173/',
  origin: 'http://localhost:5173',
  isMainFrame: true,
  fromAppWindow: true,
};

describe('checkSender', () => {
  it('accepts the main frame of the app window showing the app page', () => {
    expect(checkSender(good, fileLocation)).toEqual({ ok: true });
    expect(checkSender(goodDev, devLocation)).toEqual({ ok: true });
  });

  it.each<[string, SenderInfo | null | undefined, string]>([
    ['a missing frame', null, 'no sender frame'],
    ['an undefined frame', undefined, 'no sender frame'],
    ['a subframe', { ...good, isMainFrame: false }, 'not the main frame'],
    ['another webContents', { ...good, fromAppWindow: false }, 'not the app window'],
    ['another local file', { ...good, url: 'file:///tmp/evil.html' }, 'not the app page'],
    ['a remote page', { ...good, url: 'https://evil.example/', origin: 'https://evil.example' }, 'not the app page'],
    ['a data: page', { ...good, url: 'data:text/html,x', origin: 'null' }, 'not the app page'],
    ['about:blank', { ...good, url: 'about:blank' }, 'not the app page'],
    ['an empty URL', { ...good, url: '' }, 'not the app page'],
  ])('refuses %s (file app)', (_name, sender, reason) => {
    const verdict = checkSender(sender, fileLocation);
    expect(verdict.ok).toBe(false);
    expect(verdict.ok ? '' : verdict.reason).toContain(reason);
  });

  it.each<[string, SenderInfo]>([
    ['a wrong origin', { ...goodDev, origin: 'http://localhost:6000' }],
    ['a wrong URL origin', { ...goodDev, url: 'http://localhost:6000/' }],
    ['another host', { ...goodDev, url: 'http://evil.example/', origin: 'http://evil.example' }],
    ['an opaque origin', { ...goodDev, origin: 'null' }],
    ['a subframe', { ...goodDev, isMainFrame: false }],
  ])('refuses %s (dev server)', (_name, sender) => {
    expect(checkSender(sender, devLocation).ok).toBe(false);
  });
});

describe('createInvokeHandler', () => {
  const ok: DispatchResult = { ok: true, result: { hello: 1 } };

  function handler(sender: SenderInfo | null | (() => never), dispatch = vi.fn(async () => ok)) {
    const log = vi.fn();
    const handle = createInvokeHandler<{ id: number }>({
      location: fileLocation,
      describeSender: () => (typeof sender === 'function' ? sender() : sender),
      dispatch,
      log,
    });
    return { handle, dispatch, log };
  }

  it('dispatches calls from the app window', async () => {
    const { handle, dispatch } = handler(good);
    await expect(handle({ id: 1 }, 'servers.list', {})).resolves.toEqual(ok);
    expect(dispatch).toHaveBeenCalledWith('servers.list', {});
  });

  it('refuses other senders without dispatching, and logs no payload', async () => {
    for (const sender of [null, { ...good, isMainFrame: false }, { ...good, url: 'https://evil.example/' }]) {
      const { handle, dispatch, log } = handler(sender);
      const result = await handle({ id: 1 }, 'servers.save', { secrets: { 'auth.token': 'hunter2-secret' } });
      expect(result).toEqual(FORBIDDEN_SENDER);
      expect(result).toMatchObject({ ok: false, error: { code: 'forbidden_sender' } });
      expect(dispatch).not.toHaveBeenCalled();
      expect(JSON.stringify(log.mock.calls)).not.toContain('hunter2');
    }
  });

  it('treats a sender that cannot be read as no sender', async () => {
    const { handle, dispatch } = handler(() => {
      throw new Error('Render frame was disposed');
    });
    await expect(handle({ id: 1 }, 'app.info', {})).resolves.toEqual(FORBIDDEN_SENDER);
    expect(dispatch).not.toHaveBeenCalled();
  });

  it('turns a dispatcher that throws into the contract error shape', async () => {
    const { handle } = handler(
      good,
      vi.fn(async () => {
        throw new Error('boom with secret hunter2');
      }),
    );
    const result = await handle({ id: 1 }, 'app.info', {});
    expect(result).toMatchObject({ ok: false, error: { code: 'internal' } });
    expect(JSON.stringify(result)).not.toContain('hunter2');
  });
});

describe('createEventForwarder', () => {
  it('sends events to the window while it shows the app page', () => {
    const send = vi.fn();
    const forward = createEventForwarder(fileLocation, 'miniharness:event', () => ({ url: () => PAGE, send }));
    forward('servers.changed', { servers: [] });
    expect(send).toHaveBeenCalledWith('miniharness:event', 'servers.changed', { servers: [] });
  });

  it('drops events when there is no window, it shows another page, or it was destroyed', () => {
    const send = vi.fn();
    createEventForwarder(fileLocation, 'ch', () => undefined)('tools.changed', {});
    createEventForwarder(fileLocation, 'ch', () => ({ url: () => 'https://evil.example/', send }))('tools.changed', {});
    const destroyed = () => ({
      url: (): string => {
        throw new Error('Object has been destroyed');
      },
      send,
    });
    expect(() => createEventForwarder(fileLocation, 'ch', destroyed)('tools.changed', {})).not.toThrow();
    expect(send).not.toHaveBeenCalled();
  });
});
