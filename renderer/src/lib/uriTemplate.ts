/**
 * Which variables of an RFC 6570 URI template may be left empty. A variable in a form-style
 * query expansion (`{?x}`, `{&x}`) is dropped from the URI when empty — optional; any other
 * expansion (`{x}`, `{/x}`, `{+x}`, `{#x}`, `{.x}`, `{;x}`) leaves a hole in the URI when empty
 * (`file:///{path}` → `file:///`), so the person must give it.
 */
const EXPRESSION = /\{([+#./;?&]?)([^}]*)\}/g;

export function optionalTemplateVariables(uriTemplate: string): Set<string> {
  const optional = new Set<string>();
  for (const [, operator, list] of uriTemplate.matchAll(EXPRESSION)) {
    if (operator !== '?' && operator !== '&') continue;
    // Each variable of the list, without its modifier (`x*`, `x:3`).
    for (const spec of (list ?? '').split(',')) optional.add(spec.trim().replace(/(\*|:\d+)$/, ''));
  }
  return optional;
}
