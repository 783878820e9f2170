/**
 * Tool pinning's costs (issue 31), printed by bench:pipeline: listing 1,000 tools of 10 servers
 * with each definition hashed, screened for poisoning and checked against its pin (fresh
 * descriptor objects per listing, as a server's new listing gives; and the same objects listed
 * again, hashes cached), and the per-call pin check — the descriptor's cached hash and one Map
 * lookup, what `SecureToolExecutor.authorize` adds to every MCP call (goal: under 5 µs).
 */
import { openAppDatabase } from '../electron/core/database.js';
import { toolNameIndex } from '../electron/security/poisoning.js';
import { screenListedTool } from '../electron/security/toolScreen.js';
import { ToolPins } from '../electron/security/pins.js';
import { SqlitePinStore } from '../electron/security/sqlitePinStore.js';
import { hashedDefinition } from '../electron/security/toolDefinition.js';

const TOOLS = 1000;
const SERVERS = 10;
const LISTINGS = 30;
const CHECKS = 1_000_000;

/** Descriptions in the shape of published servers' (filesystem, memory, everything), varied per tool. */
const DESCRIPTIONS = [
  'Read the complete contents of a file from the file system as text. Handles various text encodings and provides detailed error messages if the file cannot be read. Use this tool when you need to examine the contents of a single file.',
  'Create multiple new entities in the knowledge graph',
  'Get a detailed listing of all files and directories in a specified path. Results clearly distinguish between files and directories with [FILE] and [DIR] prefixes.',
  'Returns structured content along with an output schema for client data validation',
  'Move or rename files and directories. Can move files between directories and rename them in a single operation. If the destination exists, the operation will fail.',
];

/** `generation` changes every definition (a server that changed all its tools); the same generation gives new objects with the same definitions. */
function descriptors(generation = 0): Array<{ serverId: string; name: string; tool: Record<string, unknown> }> {
  return Array.from({ length: TOOLS }, (_, i) => ({
    serverId: `server${i % SERVERS}`,
    name: `tool_${i}`,
    tool: {
      title: `Tool ${i}`,
      description: `${DESCRIPTIONS[i % DESCRIPTIONS.length]} (variant ${i}.${generation})`,
      inputSchema: {
        type: 'object',
        properties: {
          path: { type: 'string', description: 'The path of the file' },
          limit: { type: 'number', description: 'At most this many entries' },
          recursive: { type: 'boolean' },
        },
        required: ['path'],
      },
      annotations: { readOnlyHint: i % 2 === 0, openWorldHint: false },
    },
  }));
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
}

export interface PinningFigures {
  /** Never-seen definitions: hashed, screened in full, checked. */
  listNewMs: number;
  /** New objects with the same definitions (a server listing again): hashed, flags from the cache, mentions looked up. */
  listRelistedMs: number;
  /** The same objects again (the GUI asking for the list): hashes cached too. */
  listSameMs: number;
  checkNs: number;
}

export function measurePinning(): PinningFigures {
  const db = openAppDatabase(':memory:');
  const pins = new ToolPins(new SqlitePinStore(db));
  const list = (tools: ReturnType<typeof descriptors>) => {
    const index = toolNameIndex(tools);
    let flagged = 0;
    for (const { serverId, name, tool } of tools) {
      const hashed = hashedDefinition(name, tool);
      flagged += screenListedTool(hashed, serverId, index).length;
      pins.check(`uid-${serverId}`, name, hashed.hash);
    }
    if (flagged !== 0) throw new Error(`The benchmark's clean tools were flagged ${flagged} times: fix the screen.`);
  };
  // Half the tools pinned (an approval each), as in an app in use.
  for (const { serverId, name, tool } of descriptors().filter((_, i) => i % 2 === 0)) {
    const hashed = hashedDefinition(name, tool);
    pins.pin({
      serverUid: `uid-${serverId}`,
      serverId,
      toolName: name,
      hash: hashed.hash,
      definition: hashed.definition,
      pinnedAt: Date.now(),
      pinnedBy: 'gui',
      decision: 'allow-always',
    });
  }
  const fresh: number[] = [];
  const relisted: number[] = [];
  const cached: number[] = [];
  const same = descriptors();
  list(same);
  for (let round = 1; round <= LISTINGS; round++) {
    const timed = (tools: ReturnType<typeof descriptors>, into: number[]) => {
      const t = performance.now();
      list(tools);
      into.push(performance.now() - t);
    };
    timed(descriptors(round), fresh);
    timed(descriptors(round), relisted);
    timed(same, cached);
  }

  // The per-call check: what authorize does for one MCP call (cached hash, one Map lookup).
  const probe = same[2];
  if (!probe) throw new Error('no tool');
  const uid = `uid-${probe.serverId}`;
  let unchanged = 0;
  for (let i = 0; i < 10_000; i++)
    unchanged += pins.check(uid, probe.name, hashedDefinition(probe.name, probe.tool).hash).state === 'pinned' ? 1 : 0;
  const started = process.hrtime.bigint();
  for (let i = 0; i < CHECKS; i++) {
    if (pins.check(uid, probe.name, hashedDefinition(probe.name, probe.tool).hash).state === 'pinned') unchanged++;
  }
  const checkNs = Number(process.hrtime.bigint() - started) / CHECKS;
  if (unchanged !== CHECKS + 10_000) throw new Error('the pinned probe did not check as pinned');
  db.close();
  return { listNewMs: median(fresh), listRelistedMs: median(relisted), listSameMs: median(cached), checkNs };
}

export function pinningRows(f: PinningFigures): string[][] {
  const ms = (v: number) => `${v.toFixed(2)} ms`;
  return [
    ['tool pinning (issue 31)', 'median', 'goal'],
    [
      `list ${TOOLS} tools (${SERVERS} servers), never-seen definitions: hash + full screen + pin check`,
      ms(f.listNewMs),
      '',
    ],
    [
      `list them again, new objects (a server re-listing): hash + cached flags + mentions + check`,
      ms(f.listRelistedMs),
      '',
    ],
    [
      `list the same objects again (the GUI asking): cached hash + cached flags + mentions + check`,
      ms(f.listSameMs),
      '',
    ],
    [
      `per-call pin check (cached hash + lookup), ${CHECKS.toLocaleString('en')} calls`,
      `${(f.checkNs / 1000).toFixed(3)} µs`,
      '< 5 µs',
    ],
  ];
}
