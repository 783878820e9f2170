/**
 * How deep a parsed JSON value nests, measured without recursion: a value nested thousands deep
 * parses fine (V8's JSON.parse does not recurse) but overflows the stack of whatever walks it
 * next — validation, hashing, redaction, JSON.stringify — far from where it arrived. The
 * boundaries (the browser-mode bridge, the agent gateway) refuse such a value before anything
 * walks it, with a code that names the limit.
 */

/**
 * The deepest nesting a request may carry: far beyond any tool's arguments (a JSON Schema, an
 * AST fragment), far below what the recursive walkers behind the boundaries survive.
 */
export const MAX_JSON_DEPTH = 128;

/** Whether `value` nests objects and arrays more than `limit` levels deep (a scalar is depth 0). */
export function jsonDepthExceeds(value: unknown, limit: number = MAX_JSON_DEPTH): boolean {
  const stack: Array<{ value: unknown; depth: number }> = [{ value, depth: 0 }];
  while (stack.length > 0) {
    const { value: current, depth } = stack.pop() as { value: unknown; depth: number };
    if (current === null || typeof current !== 'object') continue;
    if (depth + 1 > limit) return true;
    for (const child of Array.isArray(current) ? current : Object.values(current as Record<string, unknown>)) {
      if (child !== null && typeof child === 'object') stack.push({ value: child, depth: depth + 1 });
    }
  }
  return false;
}
