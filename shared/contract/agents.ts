/** The contract's `agents.*` part: the agent gateway, its agents and what they see (their shapes: shared/agents.ts). */
import { z } from 'zod';
import {
  AgentsViewSchema,
  AgentViewSchema,
  AgentVisibilitySchema,
  CreateAgentRequestSchema,
  CreatedAgentSchema,
} from '../agents.js';
import { AddToClientRequestSchema, ClientConfigWriteSchema } from '../agentConfigs.js';
import type { DomainChannels, DomainEvents } from './common.js';
import { Empty, channel } from './common.js';

export const agentChannels = {
  /** The agent gateway: its endpoint, the registered agents, and the tool names agents see. */
  'agents.list': channel(Empty, AgentsViewSchema),
  /** Registers an agent; its token is in the answer, once (only its hash is kept). */
  'agents.create': channel(CreateAgentRequestSchema, CreatedAgentSchema),
  /** Changes which servers (and whether the local tools) an agent sees; its sessions get list_changed. */
  'agents.setVisibility': channel(
    z.object({ id: z.string().min(1).max(100), visibility: AgentVisibilitySchema }).strict(),
    AgentViewSchema,
  ),
  /** Revokes an agent's token: its sessions close and every later request is refused (401). */
  'agents.revoke': channel(z.object({ id: z.string().min(1).max(100) }).strict(), AgentViewSchema),
  /** Forgets a revoked agent (its recorded calls stay in History). */
  'agents.remove': channel(z.object({ id: z.string().min(1).max(100) }).strict(), z.object({ removed: z.boolean() })),
  /** "Add to …": writes the gateway's entry into that client's own config file (a backup beside it). */
  'agents.addToClient': channel(AddToClientRequestSchema, ClientConfigWriteSchema),
  /** Undoes an "Add to …": the file's bytes from before, while the file is still what it wrote. */
  'agents.undoAddToClient': channel(
    z.object({ undoId: z.string().min(1).max(100) }).strict(),
    z.object({ path: z.string() }),
  ),
} as const satisfies DomainChannels;

export const agentEvents = {
  /** The gateway's state, an agent, a session or the tool names agents see changed: the whole view. */
  'agents.changed': AgentsViewSchema,
} as const satisfies DomainEvents;
