/**
 * The agents registered to use the gateway, kept in the configuration store beside the servers.
 * An agent's token is shown once, when it is created, and only its SHA-256 is stored: the token
 * is 256 random bits, so a fast hash cannot be brute-forced and needs no salt or slow KDF (those
 * protect low-entropy passwords). A stored entry that does not parse is kept in the file as it
 * was (reported, never dropped) and gives no access. An agent created by an OAuth sign-in
 * (gateway/oauth/) records its client; its static token is made and dropped at once, so it is
 * reached with the tokens its sign-in got, which live in the sign-in's own store.
 *
 * `AgentStorage` is the surface the gateway, the sign-in and the Agents view use; `AgentStore`
 * (the configuration file) is the desktop's, `PostgresAgentStore` (postgresAgentStore.ts) the one
 * every instance on a selected PostgreSQL shares. Reads and the token check are from memory.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { hashToken } from '../security/tokenHash.js';
import { z } from 'zod';
import type { AgentVisibility } from '../../shared/agents.js';
import { AgentNameSchema, AgentVisibilitySchema, RESERVED_AGENT_NAMES } from '../../shared/agents.js';
import type { ConfigStore } from '../storage/configFile.js';
import { AgentNameTakenError, AgentNotFoundError } from './errors.js';

const AGENTS_KEY = 'gateway.agents';
/** Tokens start with this, so a leaked one is recognizable (secret scanners, the person). */
const TOKEN_PREFIX = 'mhg_';

/** An agent as stored (a PostgreSQL row is read through it too: anything with database access can write one). */
export const StoredAgentSchema = z.object({
  id: z.string().regex(/^[A-Za-z0-9_-]{8,100}$/),
  name: AgentNameSchema,
  tokenHash: z.string().regex(/^[0-9a-f]{64}$/),
  createdAt: z.number(),
  revokedAt: z.number().optional(),
  visibility: AgentVisibilitySchema,
  /** Set when the agent was created by an OAuth sign-in (gateway/oauth/): the client it was given to and the grant its tokens come from. Its tokenHash is then of a token nobody holds. */
  signIn: z
    .object({
      clientId: z.string().min(1).max(2048),
      clientName: z.string().max(200).optional(),
      redirectTarget: z.string().max(2048),
      grantId: z.string().min(1).max(200),
    })
    .strict()
    .optional(),
});
export type StoredAgent = z.infer<typeof StoredAgentSchema>;

type Awaitable<T> = T | Promise<T>;

/**
 * The registered agents and their tokens. Reads and `authenticate` (on every agent request) are
 * from memory; changes may be stored elsewhere first, so their results are awaited.
 */
export interface AgentStorage {
  list(): StoredAgent[];
  /** Throws AgentNotFoundError. */
  get(id: string): StoredAgent;
  /** The agent a token belongs to, unless it was revoked. */
  authenticate(token: string | undefined): StoredAgent | undefined;
  /** Throws AgentNameTakenError; the token is returned once and only its SHA-256 is kept. */
  create(name: string, visibility: AgentVisibility): Awaitable<{ agent: StoredAgent; token: string }>;
  createSignedIn(
    preferredName: string,
    visibility: AgentVisibility,
    signIn: NonNullable<StoredAgent['signIn']>,
  ): Awaitable<StoredAgent>;
  freeName(preferred: string): string;
  setVisibility(id: string, visibility: AgentVisibility): Awaitable<StoredAgent>;
  revoke(id: string): Awaitable<StoredAgent>;
  remove(id: string): Awaitable<boolean>;
}

/** A new agent token: 256 random bits after the recognizable prefix. */
export function mintAgentToken(): string {
  return `${TOKEN_PREFIX}${randomBytes(32).toString('base64url')}`;
}

/** The agent of `token` in an index by token hash, unless it was revoked (no hashing of what cannot be a token). */
export function agentOfToken(
  byHash: ReadonlyMap<string, StoredAgent>,
  token: string | undefined,
): StoredAgent | undefined {
  if (!token || !token.startsWith(TOKEN_PREFIX)) return undefined;
  const agent = byHash.get(hashToken(token));
  return agent && agent.revokedAt === undefined ? agent : undefined;
}

/** `preferred` as an agent name none of `agents` has: `Name`, else `Name 2`, `Name 3`, … */
export function freeAgentName(preferred: string, agents: readonly StoredAgent[]): string {
  const base =
    preferred
      .replace(/[^A-Za-z0-9 ._-]+/g, ' ')
      .replace(/\s+/g, ' ')
      .trim()
      .replace(/^[^A-Za-z0-9]+/, '')
      .slice(0, 56)
      .trim() || 'Signed-in agent';
  // A reserved name (the person's caller id) is taken too: a client that calls itself `gui` becomes `gui 2`.
  const taken = new Set([...agents.map((a) => a.name.toLowerCase()), ...RESERVED_AGENT_NAMES]);
  if (!taken.has(base.toLowerCase())) return base;
  for (let n = 2; ; n++) if (!taken.has(`${base} ${n}`.toLowerCase())) return `${base} ${n}`;
}

export class AgentStore implements AgentStorage {
  private agents: StoredAgent[] = [];
  /** Entries of the file that do not parse: written back unchanged, never used. */
  private unreadable: unknown[] = [];
  private byHash = new Map<string, StoredAgent>();

  constructor(
    private readonly config: ConfigStore,
    private readonly warn: (message: string) => void,
    private readonly now: () => number = Date.now,
  ) {
    this.load();
  }

  list(): StoredAgent[] {
    return [...this.agents];
  }

  get(id: string): StoredAgent {
    const agent = this.agents.find((a) => a.id === id);
    if (!agent) throw new AgentNotFoundError(id);
    return agent;
  }

  /** The agent a token belongs to, unless it was revoked. */
  authenticate(token: string | undefined): StoredAgent | undefined {
    return agentOfToken(this.byHash, token);
  }

  create(name: string, visibility: AgentVisibility): { agent: StoredAgent; token: string } {
    const clean = AgentNameSchema.parse(name);
    if (this.agents.some((a) => a.name.toLowerCase() === clean.toLowerCase())) throw new AgentNameTakenError(clean);
    const token = mintAgentToken();
    const agent: StoredAgent = {
      id: randomUUID(),
      name: clean,
      tokenHash: hashToken(token),
      createdAt: this.now(),
      visibility: AgentVisibilitySchema.parse(visibility),
    };
    this.save([...this.agents, agent]);
    return { agent, token };
  }

  /**
   * An agent created by the person allowing a client's sign-in: named after the client (made
   * unique with a number), reached with OAuth tokens only (its static token is made and dropped).
   */
  createSignedIn(
    preferredName: string,
    visibility: AgentVisibility,
    signIn: NonNullable<StoredAgent['signIn']>,
  ): StoredAgent {
    const name = this.freeName(preferredName);
    const agent: StoredAgent = {
      id: randomUUID(),
      name,
      tokenHash: hashToken(mintAgentToken()),
      createdAt: this.now(),
      visibility: AgentVisibilitySchema.parse(visibility),
      signIn,
    };
    this.save([...this.agents, agent]);
    return agent;
  }

  /** `preferred` as an agent name no other agent has: `Name`, else `Name 2`, `Name 3`, … */
  freeName(preferred: string): string {
    return freeAgentName(preferred, this.agents);
  }

  setVisibility(id: string, visibility: AgentVisibility): StoredAgent {
    const agent = { ...this.get(id), visibility: AgentVisibilitySchema.parse(visibility) };
    this.save(this.agents.map((a) => (a.id === id ? agent : a)));
    return agent;
  }

  revoke(id: string): StoredAgent {
    const current = this.get(id);
    if (current.revokedAt !== undefined) return current;
    const agent = { ...current, revokedAt: this.now() };
    this.save(this.agents.map((a) => (a.id === id ? agent : a)));
    return agent;
  }

  remove(id: string): boolean {
    if (!this.agents.some((a) => a.id === id)) return false;
    this.save(this.agents.filter((a) => a.id !== id));
    return true;
  }

  private load(): void {
    const raw = this.config.get(AGENTS_KEY);
    if (raw === undefined) return;
    if (!Array.isArray(raw)) {
      this.unreadable = [raw];
      this.warn(
        'The list of agents in the settings file is not a list; no agent can connect until it is fixed or the agents are registered again.',
      );
      return;
    }
    const agents: StoredAgent[] = [];
    for (const entry of raw) {
      const parsed = StoredAgentSchema.safeParse(entry);
      if (parsed.success && !agents.some((a) => a.id === parsed.data.id)) agents.push(parsed.data);
      else this.unreadable.push(entry);
    }
    if (this.unreadable.length > 0)
      this.warn(
        `${this.unreadable.length} agent entr${this.unreadable.length === 1 ? 'y' : 'ies'} in the settings file could not be read; they were kept as they are and cannot connect.`,
      );
    this.index(agents);
  }

  private save(agents: StoredAgent[]): void {
    // Written first: if the file cannot be written, nothing changes in memory either.
    this.config.set(AGENTS_KEY, [...agents, ...this.unreadable]);
    this.index(agents);
  }

  private index(agents: StoredAgent[]): void {
    this.agents = agents;
    this.byHash = new Map(agents.map((a) => [a.tokenHash, a]));
  }
}
