/**
 * `x-mcp-header` declarations in a tool's input schema (MCP 2026-07-28, SEP-2243): a property
 * may ask to be mirrored into an `Mcp-Param-<name>` HTTP header. A client MUST exclude a tool
 * whose declarations are invalid — the SDK does so in its own `listTools()`, but the client here
 * lists page by page through `request()` (bounded pages, its own cache), so it applies the same
 * rules itself:
 * - only on a property reached through a chain of `properties` (not under `items`,
 *   `additionalProperties`, `oneOf`/`anyOf`/`allOf`/`not`, `if`/`then`/`else`, `$ref`, …);
 * - a non-empty RFC 9110 token (no spaces, control characters, delimiters or non-ASCII);
 * - on a primitive property: `string`, `integer` or `boolean`;
 * - unique without regard to case.
 */

const KEY = 'x-mcp-header';
/** RFC 9110 §5.6.2 `token`. */
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
const PRIMITIVE_TYPES = new Set(['string', 'integer', 'boolean']);
/** Keywords whose subschemas are not reached through `properties` alone. */
const NOT_REACHABLE = [
  'items',
  'prefixItems',
  'additionalProperties',
  'patternProperties',
  'unevaluatedProperties',
  'oneOf',
  'anyOf',
  'allOf',
  'not',
  'if',
  'then',
  'else',
  '$defs',
  'definitions',
  'dependentSchemas',
  'contains',
  'propertyNames',
];

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** Why the tool's `x-mcp-header` declarations are invalid, or undefined when they are valid (or absent). */
export function invalidHeaderDeclaration(inputSchema: unknown): string | undefined {
  const seen = new Map<string, string>();
  const visit = (node: unknown, path: readonly string[], reachable: boolean): string | undefined => {
    if (!isObject(node)) return undefined;
    const where = path.length > 0 ? path.join('.') : '(the schema itself)';
    if (KEY in node) {
      if (!reachable || path.length === 0)
        return `${where}: ${KEY} is allowed only on a property reached through "properties"`;
      const name = node[KEY];
      if (typeof name !== 'string' || name.length === 0) return `${where}: ${KEY} must be a non-empty string`;
      if (!TOKEN.test(name)) return `${where}: ${KEY} ${JSON.stringify(name)} is not an HTTP token`;
      if (typeof node.type !== 'string' || !PRIMITIVE_TYPES.has(node.type))
        return `${where}: ${KEY} is allowed only on a string, integer or boolean property`;
      const earlier = seen.get(name.toLowerCase());
      if (earlier !== undefined) return `${where}: ${KEY} ${JSON.stringify(name)} repeats ${JSON.stringify(earlier)}`;
      seen.set(name.toLowerCase(), name);
    }
    if (isObject(node.properties)) {
      for (const [key, child] of Object.entries(node.properties)) {
        const fault = visit(child, [...path, key], reachable);
        if (fault) return fault;
      }
    }
    for (const keyword of NOT_REACHABLE) {
      const sub = node[keyword];
      const branches = Array.isArray(sub)
        ? sub
        : isObject(sub) &&
            (keyword === '$defs' ||
              keyword === 'definitions' ||
              keyword === 'patternProperties' ||
              keyword === 'dependentSchemas')
          ? Object.values(sub)
          : [sub];
      for (const branch of branches) {
        const fault = visit(branch, [...path, `<${keyword}>`], false);
        if (fault) return fault;
      }
    }
    return undefined;
  };
  return visit(inputSchema, [], true);
}
