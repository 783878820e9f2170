/**
 * A tool's MCP App declaration as main reads it (electron/mcp/toolUi.ts): the extension's
 * `_meta.ui` and its deprecated flat key, visibility with its default, and a malformed
 * declaration ignored as a whole with the reason — never a throw.
 */
import { describe, expect, it } from 'vitest';
import { callableByApp, readToolUi, visibleToModel } from '../../electron/mcp/toolUi.js';

describe('readToolUi', () => {
  it('reads resourceUri and visibility; visibility defaults to model and app', () => {
    expect(readToolUi({ ui: { resourceUri: 'ui://a/b.html' } })).toEqual({
      app: { resourceUri: 'ui://a/b.html', visibility: ['model', 'app'] },
    });
    expect(readToolUi({ ui: { resourceUri: 'ui://a/b.html', visibility: ['app'] } })).toEqual({
      app: { resourceUri: 'ui://a/b.html', visibility: ['app'] },
    });
    // An app-only helper without a page of its own keeps its visibility.
    expect(readToolUi({ ui: { visibility: ['app'] } })).toEqual({ app: { visibility: ['app'] } });
  });

  it('reads the deprecated flat key ui/resourceUri', () => {
    expect(readToolUi({ 'ui/resourceUri': 'ui://old/page.html' })).toEqual({
      app: { resourceUri: 'ui://old/page.html', visibility: ['model', 'app'] },
    });
  });

  it('no declaration: nothing, no problem', () => {
    expect(readToolUi(undefined)).toEqual({});
    expect(readToolUi({ other: 1 })).toEqual({});
    expect(readToolUi('junk')).toEqual({});
  });

  it('a malformed declaration is ignored as a whole, with the reason', () => {
    for (const meta of [
      { ui: 'ui://a' },
      { ui: { resourceUri: 42 } },
      { ui: { resourceUri: 'https://example.com/app.html' } },
      { ui: { resourceUri: 'ui://' } },
      { ui: { resourceUri: 'ui://a', visibility: 'app' } },
      { ui: { resourceUri: 'ui://a', visibility: ['app', 'everyone'] } },
      { ui: { resourceUri: `ui://${'x'.repeat(9000)}` } },
    ]) {
      const reading = readToolUi(meta);
      expect(reading.app).toBeUndefined();
      expect(reading.problem).toEqual(expect.any(String));
    }
  });

  it('visibility decides who may call: model-facing lists and apps', () => {
    expect(visibleToModel(undefined)).toBe(true);
    expect(visibleToModel({ visibility: ['app'] })).toBe(false);
    expect(visibleToModel({ visibility: ['model', 'app'] })).toBe(true);
    expect(callableByApp(undefined)).toBe(true);
    expect(callableByApp({ visibility: ['model'] })).toBe(false);
    expect(callableByApp({ resourceUri: 'ui://a', visibility: ['app'] })).toBe(true);
  });
});
