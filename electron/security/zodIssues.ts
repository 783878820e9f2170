import type { z } from 'zod';

/**
 * One line per zod issue, "path: message". Only the location and zod's message — never the
 * received value, which could be a secret or file contents.
 */
export function describeZodIssues(error: z.ZodError, max = 5): string {
  const lines = error.issues.slice(0, max).map((issue) => {
    const where = issue.path.length ? issue.path.map(String).join('.') : '(root)';
    return `${where}: ${issue.message}`;
  });
  const more = error.issues.length > max ? `; and ${error.issues.length - max} more` : '';
  return lines.join('; ') + more;
}
