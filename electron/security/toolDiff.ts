/**
 * What changed between a pinned definition and the current one, as data for the side-by-side
 * view: the description as a word diff, each schema as a line diff of its canonical pretty JSON,
 * and the small fields (title, each annotation, `_meta.ui`, `execution`) before and after.
 * The text diffs are jsdiff's (the `diff` package): a maintained Myers diff, not one of our own.
 */
import { diffLines, diffWordsWithSpace } from 'diff';
import type { ToolChangeView } from '../../shared/contract/toolPins.js';
import { canonicalJson } from '../util/stableHash.js';
import type { ToolPin } from './pins.js';
import type { ToolDefinition } from './toolDefinition.js';

type DiffPart = ToolChangeView['description'] extends (infer P)[] | undefined ? P : never;

function parts(changes: ReadonlyArray<{ value: string; added: boolean; removed: boolean }>): DiffPart[] {
  return changes.map((c) => ({
    value: c.value,
    ...(c.added ? { added: true } : {}),
    ...(c.removed ? { removed: true } : {}),
  }));
}

/** Sorted keys at every depth, two-space indent: the same schema always prints the same lines. */
function pretty(value: unknown): string {
  const json = canonicalJson(value ?? null) ?? 'null';
  return `${JSON.stringify(JSON.parse(json), null, 2)}\n`;
}

function jsonText(value: unknown): string | undefined {
  return value === null || value === undefined ? undefined : canonicalJson(value);
}

function fieldChanges(before: ToolDefinition, after: ToolDefinition): ToolChangeView['fields'] {
  const out: ToolChangeView['fields'] = [];
  const push = (field: string, a: unknown, b: unknown) => {
    const was = jsonText(a);
    const now = jsonText(b);
    if (was !== now)
      out.push({ field, ...(was !== undefined ? { before: was } : {}), ...(now !== undefined ? { after: now } : {}) });
  };
  push('title', before.title, after.title);
  const annotationsBefore = (before.annotations ?? {}) as Record<string, unknown>;
  const annotationsAfter = (after.annotations ?? {}) as Record<string, unknown>;
  for (const key of [...new Set([...Object.keys(annotationsBefore), ...Object.keys(annotationsAfter)])].sort())
    push(`annotations.${key}`, annotationsBefore[key], annotationsAfter[key]);
  push('_meta.ui', before.ui, after.ui);
  push('execution', before.execution, after.execution);
  return out;
}

export function toolChange(pin: ToolPin, current: { definition: ToolDefinition; hash: string }): ToolChangeView {
  const before = pin.definition;
  const after = current.definition;
  const schemas: ToolChangeView['schemas'] = [];
  for (const field of ['inputSchema', 'outputSchema'] as const) {
    const a = pretty(before[field]);
    const b = pretty(after[field]);
    if (a !== b) schemas.push({ field, parts: parts(diffLines(a, b)) });
  }
  return {
    pinnedHash: pin.hash,
    currentHash: current.hash,
    pinnedAt: pin.pinnedAt,
    pinnedBy: pin.pinnedBy,
    ...(before.description !== after.description
      ? { description: parts(diffWordsWithSpace(before.description ?? '', after.description ?? '')) }
      : {}),
    schemas,
    fields: fieldChanges(before, after),
  };
}
