/**
 * Whether `value` is a plain object — what JSON.parse makes (`{}` or `Object.create(null)`), not an
 * array, a class instance or null: the shape checks made by hand in place of a schema's parse
 * (mcp/plainResponse.ts, the SDK adapter's plain results, the gateway's era route) accept only these.
 */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value) as unknown;
  return proto === Object.prototype || proto === null;
}
