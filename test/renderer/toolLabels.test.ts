/** Tool titles, annotation chips and counts as the renderer words them. */
import { describe, expect, it } from 'vitest';
import { countOf } from '../../renderer/src/lib/plural.js';
import { annotationChips, toolTitle } from '../../renderer/src/lib/annotations.js';

const labels = (annotations: Record<string, unknown>) => annotationChips(annotations).map((c) => c.label);

describe('annotation chips', () => {
  it('gives a read-only tool "read-only" and no write-tool hints', () => {
    expect(
      labels({
        title: 'Read File',
        readOnlyHint: true,
        destructiveHint: false,
        idempotentHint: true,
        openWorldHint: false,
      }),
    ).toEqual(['read-only', 'closed world']);
  });

  it('gives a non-destructive write tool "additive only"', () => {
    expect(labels({ readOnlyHint: false, destructiveHint: false, idempotentHint: false })).toEqual([
      'may write',
      'additive only',
      'not idempotent',
    ]);
    expect(labels({ destructiveHint: true })).toEqual(['destructive']);
  });
});

describe('tool titles', () => {
  it('prefers the MCP title, falls back to annotations.title, and hides a title equal to the name', () => {
    expect(toolTitle({ name: 'read_file', title: 'Read File (Deprecated)', annotations: { title: 'Old' } })).toBe(
      'Read File (Deprecated)',
    );
    expect(toolTitle({ name: 'read_file', annotations: { title: 'Read file' } })).toBe('Read file');
    expect(toolTitle({ name: 'echo', title: 'echo' })).toBeUndefined();
    expect(toolTitle({ name: 'echo' })).toBeUndefined();
  });
});

describe('counts', () => {
  it('says "1 item" and "2 items", with grouped digits', () => {
    expect(countOf(1, 'item', 'items')).toBe('1 item');
    expect(countOf(0, 'item', 'items')).toBe('0 items');
    expect(countOf(2, 'tool', 'tools')).toBe('2 tools');
    expect(countOf(1200, 'call', 'calls')).toBe('1,200 calls');
  });
});
