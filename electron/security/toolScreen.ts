/**
 * Screening a listed tool (poisoning.ts) at listing speed: the flags that depend on its
 * definition alone are kept by the definition's hash, so a server listing the same tools again
 * (new objects, same definitions) is only hashed; the mentions of other servers' tools are looked
 * up again each listing (cheap: one Map lookup per word), since what else is listed changes them.
 */
import type { PoisonFlag, ToolNameIndex } from './poisoning.js';
import { screenDefinition, screenMentionsOf } from './poisoning.js';
import type { HashedDefinition } from './toolDefinition.js';

/** Bounded: past this many definitions the cache starts over (servers listing ever-new tools). */
const MAX_CACHED = 50_000;
const ownFlags = new Map<string, PoisonFlag[]>();

export function screenListedTool(hashed: HashedDefinition, serverId: string, index: ToolNameIndex): PoisonFlag[] {
  let own = ownFlags.get(hashed.hash);
  if (!own) {
    if (ownFlags.size >= MAX_CACHED) ownFlags.clear();
    own = screenDefinition(hashed.definition);
    ownFlags.set(hashed.hash, own);
  }
  const mentions = screenMentionsOf(hashed.definition, serverId, index);
  return mentions.length > 0 ? [...own, ...mentions] : own;
}
