/**
 * Tool-poisoning screening (issue 31): a pure look at a tool's definition for text aimed at the
 * model rather than the person — invisible or bidirectional Unicode, text hidden by markup,
 * instructions to the model, mentions of other servers' tools (shadowing), and URLs or addresses
 * to send data to. A flag is a warning naming the passage; it never blocks by itself (a rule may:
 * `match.flagged`). Heuristics: they catch the published attack shapes, not a paraphrase written
 * to slip past them (README “Tool pinning and poisoning flags” says what they cannot).
 */
import type { ToolDefinition } from './toolDefinition.js';

export type PoisonFlagKind =
  'invisible_unicode' | 'hidden_markup' | 'model_instruction' | 'other_server_tool' | 'exfil_url';

export interface PoisonFlag {
  kind: PoisonFlagKind;
  /** Where the passage is: `description`, `title`, `inputSchema.properties.path.description`, … */
  field: string;
  /** The passage, at most PASSAGE_CHARS, with invisible characters written as `<U+XXXX>`. */
  passage: string;
  /** For `other_server_tool`: the server whose tool is named. */
  otherServer?: string;
}

const PASSAGE_CHARS = 160;

/** Zero-width, word joiners, BOM, soft hyphen, bidi controls, tag characters, supplementary variation selectors. */
// Each is matched alone on purpose (a joiner or selector is the finding), so "combined" characters are not a mistake here.
/* eslint-disable no-misleading-character-class */
const INVISIBLE =
  /[\u00AD\u061C\u180E\u200B-\u200F\u202A-\u202E\u2060-\u2064\u2066-\u2069\uFEFF\u{E0000}-\u{E007F}\u{E0100}-\u{E01EF}]/gu;
/* eslint-enable no-misleading-character-class */

const HIDDEN_MARKUP: readonly RegExp[] = [
  /<!--[\s\S]*?(?:-->|$)/g,
  /\[\/\/\]:\s*#\s*[("][^)"]*[)"]/g,
  /<\s*(important|system|secret|hidden|instructions?|admin|assistant|note-to-ai|ai)\b[^>]*>[\s\S]*?(?:<\s*\/\s*\1\s*>|$)/gi,
  /<[a-z][^>]*style\s*=\s*["'][^"']*(display\s*:\s*none|visibility\s*:\s*hidden|font-size\s*:\s*0|opacity\s*:\s*0)[^>]*>/gi,
];

/** Sensitive things an instruction may point the model at. */
const SENSITIVE = String.raw`(~\/\.ssh|\.ssh\/|id_rsa|id_ed25519|\.env\b|\.aws\/|\.netrc|\.npmrc|\/etc\/passwd|\/etc\/shadow|mcp\.json|private keys?|api[ _-]?keys?|passwords?|credentials|secrets?|access tokens?|conversation history|chat history|system prompt)`;

const MODEL_INSTRUCTIONS: readonly RegExp[] = [
  /\b(ignore|disregard|forget|override)\b[^.\n]{0,40}\b(previous|prior|above|earlier|all|other|any)\b[^.\n]{0,30}\b(instructions?|prompts?|rules?|messages?|directions?)\b/gi,
  /\b(do not|don't|never|without)\b[^.\n]{0,30}\b(tell(ing)?|mention(ing)?|inform(ing)?|reveal(ing)?|notify(ing)?|alert(ing)?|show(ing)?)\b[^.\n]{0,20}\b(the )?user\b/gi,
  new RegExp(
    String.raw`\b(read|open|cat|access|load|fetch|include|send|pass|upload|attach|copy|forward|provide|append)\b(?:[^.\n]|\.(?=\S)){0,60}${SENSITIVE}[\w./-]*`,
    'gi',
  ),
  /\b(before|after|whenever|every time)\b[^.\n]{0,30}\b(using|calling|invoking|running|you use|you call)\b[^.\n]{0,60}\b(you must|must|always|first|also)\b[^.\n]{0,80}/gi,
  /\b(you are (now )?(an?|the) (ai|assistant|model|llm)|as an ai\b|(the|this) (assistant|model|ai|llm|agent) (must|should|will|has to)\b)[^.\n]{0,80}/gi,
];

const URL = /\bhttps?:\/\/[^\s"'<>)\]]+/gi;
const EMAIL = /\b[\w.+-]+@[\w-]+(\.[\w-]+)+\b/g;
const SEND_VERB =
  /\b(send|post|upload|forward|report|exfiltrate|transmit|submit|deliver|bcc|cc|leak|mail|copy)\b[^.\n]{0,60}$/i;
const COLLECTOR_HOST =
  /(webhook\.site|requestbin|pipedream\.net|ngrok|burpcollaborator|interact\.sh|oast\.|hookbin|beeceptor)/i;
const URL_PLACEHOLDER = /[?&][^=\s]+=(\{|\$|<|%7B)/i;

/** A word that may be a tool name; only an identifier-like one (a separator or an inner capital) counts, so plain words are never taken for one. */
const WORD = /[A-Za-z0-9]+(?:[_.-][A-Za-z0-9]+)+|[a-z]+[A-Z][A-Za-z0-9]*/g;
const IDENTIFIER_LIKE = /[_-]|\.[A-Za-z]|[a-z][A-Z]/;

/** The other servers' tools, by name: which servers list a tool of that name. */
export type ToolNameIndex = ReadonlyMap<string, readonly string[]>;

export function toolNameIndex(tools: Iterable<{ name: string; serverId: string }>): ToolNameIndex {
  const index = new Map<string, string[]>();
  for (const tool of tools) {
    const servers = index.get(tool.name);
    if (servers) servers.push(tool.serverId);
    else index.set(tool.name, [tool.serverId]);
  }
  return index;
}

function visible(text: string): string {
  return text.replace(INVISIBLE, (c) => `<U+${(c.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, '0')}>`);
}

function passageAround(text: string, start: number, end: number): string {
  const from = Math.max(0, start - 20);
  const raw = text.slice(from, Math.min(text.length, Math.max(end, start + 1) + 20)).trim();
  const shown = visible(raw);
  return shown.length > PASSAGE_CHARS ? `${shown.slice(0, PASSAGE_CHARS - 1)}…` : shown;
}

function exactPassage(match: string): string {
  const shown = visible(match.trim());
  return shown.length > PASSAGE_CHARS ? `${shown.slice(0, PASSAGE_CHARS - 1)}…` : shown;
}

type AddFlag = (kind: PoisonFlagKind, passage: string, otherServer?: string) => void;

function adder(flags: PoisonFlag[], field: string): AddFlag {
  return (kind, passage, otherServer) => {
    if (!flags.some((f) => f.kind === kind && f.field === field && f.passage === passage))
      flags.push({ kind, field, passage, ...(otherServer ? { otherServer } : {}) });
  };
}

/** The flags of one piece of text (one field) that depend on nothing else. Cheap tests first skip the regexes that cannot match. */
function screenOwnText(text: string, add: AddFlag): void {
  for (const m of text.matchAll(INVISIBLE))
    add('invisible_unicode', passageAround(text, m.index, m.index + m[0].length));
  if (text.includes('<') || text.includes('[//]'))
    for (const pattern of HIDDEN_MARKUP)
      for (const m of text.matchAll(pattern)) add('hidden_markup', exactPassage(m[0]));
  // Invisible characters are removed first, so a zero-width space cannot split a keyword.
  const plain = text.replace(INVISIBLE, '');
  for (const pattern of MODEL_INSTRUCTIONS)
    for (const m of plain.matchAll(pattern)) add('model_instruction', exactPassage(m[0]));
  if (/https?:/i.test(plain)) {
    for (const m of plain.matchAll(URL)) {
      const before = plain.slice(Math.max(0, m.index - 80), m.index);
      if (SEND_VERB.test(before) || COLLECTOR_HOST.test(m[0]) || URL_PLACEHOLDER.test(m[0]))
        add('exfil_url', passageAround(plain, m.index, m.index + m[0].length));
    }
  }
  if (plain.includes('@')) {
    for (const m of plain.matchAll(EMAIL)) {
      if (SEND_VERB.test(plain.slice(Math.max(0, m.index - 80), m.index)))
        add('exfil_url', passageAround(plain, m.index, m.index + m[0].length));
    }
  }
}

/** Names of other servers' tools in the text: each word is looked up (a Map), and only identifier-like ones count. */
function screenMentions(text: string, serverId: string, otherTools: ToolNameIndex, add: AddFlag): void {
  // Most texts have no identifier-like word at all: one test, no word scan.
  if (!IDENTIFIER_LIKE.test(text)) return;
  const plain = text.replace(INVISIBLE, '');
  for (const m of plain.matchAll(WORD)) {
    const servers = otherTools.get(m[0]);
    if (!servers || servers.includes(serverId)) continue;
    add('other_server_tool', passageAround(plain, m.index, m.index + m[0].length), servers[0]);
  }
}

/** Every text of a definition the model reads: title, description, and the schemas' titles and descriptions. */
function textsOf(definition: ToolDefinition): Array<[field: string, text: string]> {
  const texts: Array<[string, string]> = [];
  if (definition.title) texts.push(['title', definition.title]);
  if (definition.description) texts.push(['description', definition.description]);
  const annotationTitle = (definition.annotations as { title?: unknown } | null)?.title;
  if (typeof annotationTitle === 'string') texts.push(['annotations.title', annotationTitle]);
  const walk = (node: unknown, path: string, depth: number) => {
    if (depth > 8 || node === null || typeof node !== 'object') return;
    for (const [key, value] of Object.entries(node)) {
      const here = `${path}.${key}`;
      if ((key === 'description' || key === 'title') && typeof value === 'string') texts.push([here, value]);
      else walk(value, here, depth + 1);
    }
  };
  walk(definition.inputSchema, 'inputSchema', 0);
  walk(definition.outputSchema, 'outputSchema', 0);
  return texts;
}

/** The flags of one tool's definition that depend on it alone (cache them by its hash). */
export function screenDefinition(definition: ToolDefinition): PoisonFlag[] {
  const flags: PoisonFlag[] = [];
  for (const [field, text] of textsOf(definition)) screenOwnText(text, adder(flags, field));
  return flags;
}

/** The flags for other servers' tools the definition names (they change with what else is listed). */
export function screenMentionsOf(
  definition: ToolDefinition,
  serverId: string,
  otherTools: ToolNameIndex,
): PoisonFlag[] {
  const flags: PoisonFlag[] = [];
  for (const [field, text] of textsOf(definition)) screenMentions(text, serverId, otherTools, adder(flags, field));
  return flags;
}
