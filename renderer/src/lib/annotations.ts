/** MCP tool annotations (hints, not guarantees) as short chips. */
export interface AnnotationChip {
  label: string;
  tone: 'neutral' | 'positive' | 'warning';
  title: string;
}

const HINTS: Record<string, { yes: AnnotationChip; no: AnnotationChip }> = {
  readOnlyHint: {
    yes: { label: 'read-only', tone: 'positive', title: 'Says it does not modify its environment' },
    no: { label: 'may write', tone: 'neutral', title: 'May modify its environment' },
  },
  destructiveHint: {
    yes: { label: 'destructive', tone: 'warning', title: 'May delete or overwrite data' },
    no: { label: 'additive only', tone: 'neutral', title: 'Says its changes are additive' },
  },
  idempotentHint: {
    yes: { label: 'idempotent', tone: 'positive', title: 'Repeating a call has no additional effect' },
    no: { label: 'not idempotent', tone: 'neutral', title: 'Repeating a call may have additional effects' },
  },
  openWorldHint: {
    yes: { label: 'open world', tone: 'neutral', title: 'Interacts with external entities (web, other systems)' },
    no: { label: 'closed world', tone: 'neutral', title: 'Works within a closed domain' },
  },
};

/** Hints the MCP spec defines only for tools that write: meaningless (and misleading) on a read-only tool. */
const WRITE_ONLY_HINTS = new Set(['destructiveHint', 'idempotentHint']);

export function annotationChips(annotations: Record<string, unknown> | undefined): AnnotationChip[] {
  if (!annotations) return [];
  const readOnly = annotations.readOnlyHint === true;
  const chips: AnnotationChip[] = [];
  for (const [key, value] of Object.entries(annotations)) {
    if (key === 'title') continue;
    // A read-only tool reads "read-only" only: "additive only" and the like are for write tools.
    if (readOnly && WRITE_ONLY_HINTS.has(key)) continue;
    const hint = HINTS[key];
    if (hint && typeof value === 'boolean') chips.push(value ? hint.yes : hint.no);
    else
      chips.push({
        label: `${key}: ${typeof value === 'string' ? value : JSON.stringify(value)}`,
        tone: 'neutral',
        title: key,
      });
  }
  return chips;
}

/** A tool's display title (MCP `title`, else `annotations.title`), when it differs from its name. */
export function toolTitle(tool: {
  name: string;
  title?: string | undefined;
  annotations?: Record<string, unknown> | undefined;
}): string | undefined {
  const title = tool.title ?? (typeof tool.annotations?.title === 'string' ? tool.annotations.title : undefined);
  return title && title !== tool.name ? title : undefined;
}
