/**
 * The permission decision engine: for one tool call, ALLOW, ASK or DENY, and why.
 *
 * Precedence, in order:
 *  1. Explicit rules beat defaults.
 *  2. Among the rules that match, the most specific wins:
 *       tool on a specific server  >  tool name on any server  >  tool pattern  >  server-wide  >  global.
 *     Within one of those tiers, a rule with an argument (or `flagged`) condition beats one without, and a
 *     pattern scoped to a server beats an unscoped pattern.
 *  3. At equal specificity the strictest level wins: DENY > ASK > ALLOW — so a conflicting pair
 *     of rules can never loosen a decision.
 *  4. Without a matching rule, defaults apply: a trusted server's (or a local tool's)
 *     `readOnlyHint: true` allows; anything else asks. Untrusted servers always ask, since their
 *     annotations are only hints they wrote about themselves.
 *
 * A rule may carry the schema fingerprint of the tool it was granted for ("allow always"); it
 * only applies while the tool still has that fingerprint, so a tool that changed asks again.
 */
import { randomUUID } from 'node:crypto';
import { isAbsolute, relative, resolve, sep } from 'node:path';
import picomatch from 'picomatch';
import { z } from 'zod';
import type { PermissionRuleStore } from './permissionStore.js';
import { ChangedElsewhereError } from '../storage/errors.js';
import { RESERVED_SERVER_ID } from '../../shared/serverConfig.js';

export type PermissionLevel = 'ALLOW' | 'ASK' | 'DENY';

/** The server id of the app's own tools (reserved: no configured server may use it). */
export const LOCAL_SERVER_ID = RESERVED_SERVER_ID;

/** MCP tool annotations. From an untrusted server they are claims, not facts. */
export interface ToolAnnotationHints {
  readOnlyHint?: boolean;
  destructiveHint?: boolean;
  idempotentHint?: boolean;
  openWorldHint?: boolean;
  title?: string;
}

export interface ToolCallSubject {
  toolName: string;
  /** `'local'` for the app's local tools. */
  serverId: string;
  args: Record<string, unknown>;
  annotations?: ToolAnnotationHints;
  serverTrusted: boolean;
  /** The tool's current schema fingerprint; rules granted for another fingerprint do not apply. */
  schemaFingerprint?: string;
  /** The server's identity (its config's `uid`); rules bound to another identity do not apply. */
  serverUid?: string;
  /** The tool's definition has poisoning flags (poisoning.ts); a rule may match on it. */
  flagged?: boolean;
}

const PermissionLevelSchema = z.enum(['ALLOW', 'ASK', 'DENY']);

const ArgumentConditionSchema = z
  .object({
    name: z.string().min(1, 'must name an argument'),
    /** A folder: the argument, resolved as a path, must lie inside it. */
    under: z.string().min(1).optional(),
    equals: z.string().optional(),
    /** A glob (picomatch) the argument must match. */
    pattern: z.string().min(1).optional(),
  })
  .strict()
  .refine((a) => a.under !== undefined || a.equals !== undefined || a.pattern !== undefined, {
    error: 'an argument condition needs at least one of under, equals or pattern',
  });

export const PermissionRuleSchema = z
  .object({
    id: z.string().min(1).max(200),
    level: PermissionLevelSchema,
    match: z
      .object({
        serverId: z.string().min(1).optional(),
        toolName: z.string().min(1).optional(),
        toolPattern: z.string().min(1).optional(),
        argument: ArgumentConditionSchema.optional(),
        /** Set by "allow always": the rule applies only while the tool has this fingerprint. */
        schemaFingerprint: z.string().min(1).optional(),
        /**
         * The identity (`uid`) of the server the rule was made for: a server removed and added
         * again under the same id is another server, and the rule does not apply to it.
         */
        serverUid: z.string().min(1).max(100).optional(),
        /** Matches only tools whose definition has poisoning flags ("deny flagged tools"). */
        flagged: z.literal(true).optional(),
      })
      .strict(),
    note: z.string().max(500).optional(),
    createdAt: z.number().int().nonnegative(),
  })
  .strict();

export type PermissionRule = z.infer<typeof PermissionRuleSchema>;
export type ArgumentCondition = z.infer<typeof ArgumentConditionSchema>;

/** A rule to add: id and createdAt are filled in when absent. */
export type NewPermissionRule = Omit<PermissionRule, 'id' | 'createdAt'> & { id?: string; createdAt?: number };

type PermissionReasonKind = 'rule' | 'trusted-annotation-default' | 'untrusted-default' | 'default' | 'tool-changed';

export interface PermissionDecision {
  level: PermissionLevel;
  reason: {
    kind: PermissionReasonKind;
    ruleId?: string;
    /** A sentence for people, e.g. `Rule "deny writes" denies append on fixture`. */
    detail: string;
  };
}

export interface PermissionEngineOptions {
  /**
   * The folder relative path arguments are resolved against for `under` conditions. Set it to
   * the local tools' first root so a rule sees the same path the tool will use. Default: cwd.
   */
  pathBase?: string;
}

const LEVEL_STRICTNESS: Record<PermissionLevel, number> = { ALLOW: 0, ASK: 1, DENY: 2 };
const LEVEL_VERB: Record<PermissionLevel, string> = { ALLOW: 'allows', ASK: 'asks before', DENY: 'denies' };

/** Ordered specificity: compared element by element, higher is more specific. */
type Specificity = readonly [tier: number, hasArgument: number, scopedPattern: number];

function specificity(rule: PermissionRule): Specificity {
  const m = rule.match;
  const tier =
    m.toolName !== undefined
      ? m.serverId !== undefined
        ? 4
        : 3
      : m.toolPattern !== undefined
        ? 2
        : m.serverId !== undefined
          ? 1
          : 0;
  const scopedPattern = m.toolName === undefined && m.toolPattern !== undefined && m.serverId !== undefined ? 1 : 0;
  // A "flagged" condition narrows a rule as an argument condition does.
  return [tier, m.argument || m.flagged ? 1 : 0, scopedPattern];
}

function compareSpecificity(a: Specificity, b: Specificity): number {
  for (let i = 0; i < a.length; i++) {
    const d = (a[i] ?? 0) - (b[i] ?? 0);
    if (d !== 0) return d;
  }
  return 0;
}

function isInside(child: string, root: string): boolean {
  const rel = relative(root, child);
  return rel === '' || (rel !== '..' && !rel.startsWith(`..${sep}`) && !isAbsolute(rel));
}

/** Compiled globs, shared by all engines (patterns repeat across calls). */
const globCache = new Map<string, picomatch.Matcher>();
function glob(pattern: string, kind: 'tool' | 'argument'): picomatch.Matcher {
  const key = `${kind}\0${pattern}`;
  let matcher = globCache.get(key);
  if (!matcher) {
    // Tool names are not paths: let `*` cross "/" and "." there. Argument globs keep path semantics.
    matcher = picomatch(pattern, kind === 'tool' ? { dot: true, bash: true } : { dot: true });
    globCache.set(key, matcher);
  }
  return matcher;
}

function ruleLabel(rule: PermissionRule): string {
  return `Rule "${rule.note ?? rule.id}"`;
}

/** Saves tried against rules another instance keeps changing before giving up (ChangedElsewhereError). */
const MAX_SAVE_ATTEMPTS = 3;

export class PermissionDecisionEngine {
  private rules: PermissionRule[];
  /** Mutations run one after another so concurrent adds cannot lose each other's writes. */
  private queue: Promise<unknown> = Promise.resolve();
  private readonly pathBase: string | undefined;

  constructor(
    private readonly store: PermissionRuleStore,
    initialRules: readonly PermissionRule[] = [],
    options: PermissionEngineOptions = {},
  ) {
    this.rules = initialRules.map((r) => PermissionRuleSchema.parse(r));
    this.pathBase = options.pathBase;
  }

  /** An engine with the rules the store holds. */
  static async load(
    store: PermissionRuleStore,
    options: PermissionEngineOptions = {},
  ): Promise<PermissionDecisionEngine> {
    return new PermissionDecisionEngine(store, await store.load(), options);
  }

  decide(subject: ToolCallSubject): PermissionDecision {
    let best: { rule: PermissionRule; spec: Specificity } | undefined;
    for (const rule of this.rules) {
      if (!this.matches(rule, subject)) continue;
      const spec = specificity(rule);
      const cmp = best ? compareSpecificity(spec, best.spec) : 1;
      if (cmp > 0 || (cmp === 0 && best && LEVEL_STRICTNESS[rule.level] > LEVEL_STRICTNESS[best.rule.level])) {
        best = { rule, spec };
      }
    }
    if (best) {
      const { rule } = best;
      return {
        level: rule.level,
        reason: {
          kind: 'rule',
          ruleId: rule.id,
          detail: `${ruleLabel(rule)} ${LEVEL_VERB[rule.level]} ${subject.toolName} on ${subject.serverId}`,
        },
      };
    }
    return defaultDecision(subject);
  }

  /** The reason for the current level, for the GUI. Same as `decide`. */
  explain(subject: ToolCallSubject): PermissionDecision {
    return this.decide(subject);
  }

  listRules(): PermissionRule[] {
    return this.rules.map((r) => structuredClone(r));
  }

  /** Adds a rule and saves; a rule with the same id is replaced. Returns the stored rule. */
  async addRule(input: NewPermissionRule): Promise<PermissionRule> {
    const rule = PermissionRuleSchema.parse({
      ...input,
      id: input.id ?? randomUUID(),
      createdAt: input.createdAt ?? Date.now(),
    });
    await this.mutate((rules) => [...rules.filter((r) => r.id !== rule.id), rule]);
    return structuredClone(rule);
  }

  /** Removes a rule and saves. Returns whether it existed. */
  async removeRule(id: string): Promise<boolean> {
    let existed = false;
    await this.mutate((rules) => {
      existed = rules.some((r) => r.id === id);
      return rules.filter((r) => r.id !== id);
    });
    return existed;
  }

  /** Replaces every rule and saves. */
  async setRules(rules: readonly PermissionRule[]): Promise<void> {
    const parsed = rules.map((r) => PermissionRuleSchema.parse(r));
    const ids = new Set<string>();
    for (const r of parsed) {
      if (ids.has(r.id)) throw new Error(`Two permission rules have the id "${r.id}". Give each rule its own id.`);
      ids.add(r.id);
    }
    await this.mutate(() => parsed);
  }

  /**
   * Binds the rules that name a server but no server identity (saved before identities existed)
   * to the identity that server has now; a server that no longer exists leaves its rules as they
   * are. Returns how many rules were bound.
   */
  async bindServerIdentities(uidOf: (serverId: string) => string | undefined): Promise<number> {
    const uidFor = (rule: PermissionRule): string | undefined => {
      const serverId = rule.match.serverId;
      return serverId !== undefined && serverId !== LOCAL_SERVER_ID && rule.match.serverUid === undefined
        ? uidOf(serverId)
        : undefined;
    };
    const bound = this.rules.filter((rule) => uidFor(rule) !== undefined).length;
    if (bound === 0) return 0;
    await this.mutate((rules) =>
      rules.map((rule) => {
        const uid = uidFor(rule);
        return uid === undefined ? rule : { ...rule, match: { ...rule.match, serverUid: uid } };
      }),
    );
    return bound;
  }

  /**
   * Reads the rules again from the store (another instance on a shared store saved them), after
   * any save in progress here. Resolves true when they differ from what this engine held.
   */
  reload(): Promise<boolean> {
    const run = this.queue.then(async () => {
      const next = (await this.store.load()).map((r) => PermissionRuleSchema.parse(r));
      const changed = JSON.stringify(next) !== JSON.stringify(this.rules);
      this.rules = next;
      return changed;
    });
    this.queue = run.catch(() => undefined);
    return run;
  }

  /**
   * Saves first and only then swaps the rules in, so memory never claims what the disk lacks. A
   * store shared with other instances (PostgreSQL) refuses a save over rules changed since they
   * were read: the change is then applied again to the rules as they are now, a few times at most.
   */
  private mutate(change: (rules: readonly PermissionRule[]) => PermissionRule[]): Promise<void> {
    const run = this.queue.then(async () => {
      for (let attempt = 1; ; attempt++) {
        const next = change(this.rules);
        try {
          await this.store.save(next);
          this.rules = next;
          return;
        } catch (error) {
          if (!(error instanceof ChangedElsewhereError) || attempt >= MAX_SAVE_ATTEMPTS) throw error;
          this.rules = (await this.store.load()).map((r) => PermissionRuleSchema.parse(r));
        }
      }
    });
    this.queue = run.catch(() => undefined);
    return run;
  }

  private matches(rule: PermissionRule, subject: ToolCallSubject): boolean {
    const m = rule.match;
    if (m.serverId !== undefined && m.serverId !== subject.serverId) return false;
    if (m.toolName !== undefined && m.toolName !== subject.toolName) return false;
    if (m.toolPattern !== undefined && !glob(m.toolPattern, 'tool')(subject.toolName)) return false;
    if (m.schemaFingerprint !== undefined && m.schemaFingerprint !== subject.schemaFingerprint) return false;
    if (m.serverUid !== undefined && m.serverUid !== subject.serverUid) return false;
    if (m.flagged && subject.flagged !== true) return false;
    if (m.argument && !this.argumentHolds(m.argument, subject.args)) return false;
    return true;
  }

  private argumentHolds(cond: ArgumentCondition, args: Record<string, unknown>): boolean {
    const raw = Object.hasOwn(args, cond.name) ? args[cond.name] : undefined;
    // Only scalar values can be compared; an absent or structured argument never satisfies a condition.
    if (typeof raw !== 'string' && typeof raw !== 'number' && typeof raw !== 'boolean') return false;
    const value = String(raw);
    if (cond.equals !== undefined && value !== cond.equals) return false;
    if (cond.pattern !== undefined && !glob(cond.pattern, 'argument')(value)) return false;
    if (cond.under !== undefined) {
      if (typeof raw !== 'string' || value.includes('\0')) return false;
      // A pure string check; the path guard resolves symlinks when the tool runs.
      const base = this.pathBase ?? process.cwd();
      if (!isInside(resolve(base, value), resolve(base, cond.under))) return false;
    }
    return true;
  }
}

/**
 * A decision for a call that must be approved by a person whatever the rules say (the tool's own
 * guardrail asked for it: run_command without an OS sandbox, or with network access). DENY
 * stays DENY; ALLOW and ASK become ASK, with the reason first so the approval dialog shows it.
 */
export function requireAsk(decision: PermissionDecision, why: string): PermissionDecision {
  if (decision.level === 'DENY') return decision;
  return { level: 'ASK', reason: { ...decision.reason, detail: `${why} (${decision.reason.detail})` } };
}

function defaultDecision(subject: ToolCallSubject): PermissionDecision {
  const local = subject.serverId === LOCAL_SERVER_ID;
  const where = local ? 'local tool' : `tool on trusted server "${subject.serverId}"`;
  if (!local && !subject.serverTrusted) {
    return {
      level: 'ASK',
      reason: {
        kind: 'untrusted-default',
        detail: `Server "${subject.serverId}" is not trusted, so ${subject.toolName} asks first (its annotations are unverified hints)`,
      },
    };
  }
  const readOnly = subject.annotations?.readOnlyHint;
  if (readOnly === true) {
    return {
      level: 'ALLOW',
      reason: {
        kind: 'trusted-annotation-default',
        detail: `${subject.toolName} is a read-only ${where}, so it is allowed`,
      },
    };
  }
  if (readOnly === false) {
    return {
      level: 'ASK',
      reason: {
        kind: 'trusted-annotation-default',
        detail: `${subject.toolName} is a ${where} that can change things, so it asks first`,
      },
    };
  }
  return {
    level: 'ASK',
    reason: {
      kind: 'default',
      detail: `${subject.toolName} is a ${where} without a read-only annotation, so it asks first`,
    },
  };
}
