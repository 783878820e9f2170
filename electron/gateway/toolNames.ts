/**
 * The names agents see: `<server>__<tool>`, as MCP clients require — [A-Za-z0-9_-], at most 64
 * characters (several clients reject longer names or other characters). Deterministic: the tools
 * are named in one order, so the same set of tools always gets the same names, whichever agent
 * asks and in whatever order the servers answered. Tools whose plain name is already valid go
 * first (then server id, then tool name): a tool named `get_user` keeps `srv__get_user` even when
 * the same server also has `get.user`, so a name an agent already uses cannot silently start
 * meaning another tool. A name cut to fit, or taken by a tool earlier in that order, ends in `_`
 * + a short hash of the full pair.
 */
import { createHash } from 'node:crypto';
import type { GatewayToolName } from '../../shared/agents.js';

export const MAX_TOOL_NAME = 64;
const SEPARATOR = '__';
const HASH_CHARS = 6;

export interface ToolRef {
  serverId: string;
  toolName: string;
}

function sanitize(part: string): string {
  return part.replace(/[^A-Za-z0-9_-]/g, '_');
}

function pairHash(ref: ToolRef, chars: number): string {
  return createHash('sha256').update(`${ref.serverId}\0${ref.toolName}`).digest('hex').slice(0, chars);
}

function withHash(base: string, ref: ToolRef, chars: number): string {
  return `${base.slice(0, MAX_TOOL_NAME - chars - 1)}_${pairHash(ref, chars)}`;
}

const VALID_NAME = /^[A-Za-z0-9_-]+$/;

function plainName(ref: ToolRef): string {
  return `${ref.serverId}${SEPARATOR}${ref.toolName}`;
}

/** A name that needs no change: it is used as it is, before any renamed one. */
function isPlain(ref: ToolRef): boolean {
  const plain = plainName(ref);
  return plain.length <= MAX_TOOL_NAME && VALID_NAME.test(plain);
}

function compareRefs(a: ToolRef, b: ToolRef): number {
  if (a.serverId !== b.serverId) return a.serverId < b.serverId ? -1 : 1;
  if (a.toolName !== b.toolName) return a.toolName < b.toolName ? -1 : 1;
  return 0;
}

/** The naming order: plain names first, then by server and tool. */
function compare(a: ToolRef, b: ToolRef): number {
  const plainA = isPlain(a);
  if (plainA !== isPlain(b)) return plainA ? -1 : 1;
  return compareRefs(a, b);
}

/** Names every tool once; the same input set always gives the same names. */
export function nameTools(tools: readonly ToolRef[]): GatewayToolName[] {
  const taken = new Set<string>();
  const named: GatewayToolName[] = [];
  const seen = new Set<string>();
  for (const ref of [...tools].sort(compare)) {
    const key = `${ref.serverId}\0${ref.toolName}`;
    if (seen.has(key)) continue;
    seen.add(key);
    const plain = plainName(ref);
    const base = `${sanitize(ref.serverId)}${SEPARATOR}${sanitize(ref.toolName)}`;
    let name = base;
    let renamed: GatewayToolName['renamed'] = base === plain ? 'none' : 'sanitized';
    if (name.length > MAX_TOOL_NAME) {
      name = withHash(base, ref, HASH_CHARS);
      renamed = 'shortened';
    }
    // Taken by a tool earlier in the order: a longer hash until free (a clash of hashes is the only way to loop twice).
    for (let chars = HASH_CHARS; taken.has(name); chars += 2) {
      name = withHash(base, ref, Math.min(chars, 32));
      renamed = 'collision';
      if (chars > 32) throw new Error(`nameTools: no free name for ${key}`);
    }
    taken.add(name);
    named.push({ name, serverId: ref.serverId, toolName: ref.toolName, renamed });
  }
  // Listed by server, then tool (the naming order put the plain names first).
  return named.sort((a, b) => compareRefs(a, b));
}

/**
 * A tool's (or prompt's) own name, as its server documented it, is kept for an agent that asks for
 * own names when it is a name the MCP spec allows (1–128 of [A-Za-z0-9_.-]): the server offered it
 * to clients as it is.
 */
const OWN_NAME = /^[A-Za-z0-9_.-]{1,128}$/;

export interface RankedName {
  named: GatewayToolName;
  /** The server's priority (Servers → priority): the highest keeps a name several servers offer. */
  priority: number;
}

/**
 * The names an agent that keeps own names sees, among the tools it may see (`visible`): each tool
 * keeps its own name unless another visible server offers the same one — then the seed's rule
 * decides: the highest priority keeps it (ties: the server id first in order), and the others keep
 * their `<server>__<tool>` names. A tool whose own name is not a valid MCP name, or is the
 * `<server>__<tool>` name of another visible tool, keeps its `<server>__<tool>` name too. Returns
 * the name to list per `<server>\0<tool>`; every `<server>__<tool>` name still reaches its tool.
 */
export function ownNames(visible: readonly RankedName[]): Map<string, string> {
  const prefixed = new Set(visible.map((v) => v.named.name));
  const winners = new Map<string, RankedName>();
  for (const v of visible) {
    const best = winners.get(v.named.toolName);
    if (!best || v.priority > best.priority || (v.priority === best.priority && v.named.serverId < best.named.serverId))
      winners.set(v.named.toolName, v);
  }
  const out = new Map<string, string>();
  for (const v of visible) {
    const own = v.named.toolName;
    const keeps = winners.get(own) === v && OWN_NAME.test(own) && !prefixed.has(own);
    out.set(`${v.named.serverId}\0${own}`, keeps ? own : v.named.name);
  }
  return out;
}
