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
