/**
 * A JSON Schema shown as a parameter table (name, type, required, description), nesting object
 * properties; anything else falls back to the tree. The raw JSON stays one click away.
 */
import { JsonTree } from './JsonTree.js';

type Schema = Record<string, unknown>;

function asSchema(value: unknown): Schema | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Schema) : undefined;
}

/** A short type description: `string`, `number ≥ 0`, `"a" | "b"`, `array of string`. */
function typeOf(schema: Schema): string {
  if (Array.isArray(schema.enum)) return schema.enum.map((v) => JSON.stringify(v)).join(' | ');
  if ('const' in schema) return JSON.stringify(schema.const);
  const variants = (schema.anyOf ?? schema.oneOf) as unknown;
  if (Array.isArray(variants)) return variants.map((v) => typeOf(asSchema(v) ?? {})).join(' | ');
  const type = Array.isArray(schema.type)
    ? schema.type.join(' | ')
    : typeof schema.type === 'string'
      ? schema.type
      : 'any';
  if (type === 'array') {
    const items = asSchema(schema.items);
    return items ? `array of ${typeOf(items)}` : 'array';
  }
  const bounds: string[] = [];
  if (typeof schema.minimum === 'number') bounds.push(`≥ ${schema.minimum}`);
  if (typeof schema.maximum === 'number') bounds.push(`≤ ${schema.maximum}`);
  if (typeof schema.format === 'string') bounds.push(schema.format);
  return bounds.length ? `${type} (${bounds.join(', ')})` : type;
}

function PropertyRows({ schema, prefix }: { schema: Schema; prefix: string }) {
  const properties = asSchema(schema.properties) ?? {};
  const required = new Set(Array.isArray(schema.required) ? schema.required.map(String) : []);
  return (
    <>
      {Object.entries(properties).map(([name, raw]) => {
        const prop = asSchema(raw) ?? {};
        const nested = asSchema(prop.properties)
          ? prop
          : asSchema(prop.items) && asSchema(asSchema(prop.items)?.properties)
            ? asSchema(prop.items)
            : undefined;
        const path = prefix ? `${prefix}.${name}` : name;
        return <PropertyRow key={path} path={path} prop={prop} required={required.has(name)} nested={nested} />;
      })}
    </>
  );
}

function PropertyRow({
  path,
  prop,
  required,
  nested,
}: {
  path: string;
  prop: Schema;
  required: boolean;
  nested: Schema | undefined;
}) {
  return (
    <>
      <tr>
        <th scope="row" className="schema-name">
          <code>{path}</code>
          {required && <span className="schema-required">required</span>}
        </th>
        <td className="schema-type">
          <code>{typeOf(prop)}</code>
        </td>
        <td className="schema-description">
          {typeof prop.description === 'string' ? prop.description : <span className="muted">—</span>}
          {'default' in prop && (
            <span className="schema-default">
              {' '}
              Default <code>{JSON.stringify(prop.default)}</code>
            </span>
          )}
        </td>
      </tr>
      {nested && <PropertyRows schema={nested} prefix={path} />}
    </>
  );
}

export function SchemaView({ schema, label }: { schema: Schema; label: string }) {
  const hasProperties = Object.keys(asSchema(schema.properties) ?? {}).length > 0;
  return (
    <div className="schema-view">
      {hasProperties ? (
        <table className="schema-table" aria-label={label}>
          <thead>
            <tr>
              <th scope="col">Parameter</th>
              <th scope="col">Type</th>
              <th scope="col">Description</th>
            </tr>
          </thead>
          <tbody>
            <PropertyRows schema={schema} prefix="" />
          </tbody>
        </table>
      ) : schema.type === 'object' ? (
        <p className="muted">No parameters.</p>
      ) : (
        <JsonTree value={schema} />
      )}
      <details className="raw-json">
        <summary>Raw JSON</summary>
        <pre className="code-block">{JSON.stringify(schema, null, 2)}</pre>
      </details>
    </div>
  );
}
