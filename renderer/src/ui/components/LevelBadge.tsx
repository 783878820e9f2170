/** A permission level as a coloured badge: Allowed, Asks first, Denied. */
import type { PermissionsView } from '../../../../shared/contract.js';

export type Level = PermissionsView['tools'][number]['level'];

const LEVEL_WORDS: Record<Level, string> = { ALLOW: 'Allowed', ASK: 'Asks first', DENY: 'Denied' };

export function LevelBadge({ level }: { level: Level }) {
  return (
    <span className={`badge level level-${level.toLowerCase()}`} data-level={level}>
      <span className="status-dot" aria-hidden="true" />
      {level} <span className="level-words">· {LEVEL_WORDS[level]}</span>
    </span>
  );
}
