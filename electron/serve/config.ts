/**
 * `miniharness serve`'s configuration: one JSON file (--config) plus environment variables, which
 * win. Secrets (the identity provider's client secret, the database URL, the TLS key) come from
 * the environment or from files named there or in the config (`…_FILE`, as containers and
 * systemd's credentials hand them over); they live only in the returned object and are never
 * printed — errors name the variable or the file, never the value.
 */
import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { z } from 'zod';
import { ROLES } from './roles.js';

const Address = z.string().min(1).max(255);

const FileSchema = z
  .object({
    /** Where the web UI listens (default 127.0.0.1:8080). */
    listen: z
      .object({ host: Address.default('127.0.0.1'), port: z.number().int().min(0).max(65535).default(8080) })
      .strict()
      .default({ host: '127.0.0.1', port: 8080 }),
    /** The address people open, e.g. https://miniharness.example.com (Host and Origin are checked against it). */
    publicUrl: z.url().optional(),
    tls: z
      .object({ certFile: z.string().min(1), keyFile: z.string().min(1) })
      .strict()
      .optional(),
    /** Reverse proxies in front (their addresses): only they may say who the client is (X-Forwarded-For). */
    trustedProxies: z.array(z.string().min(1).max(64)).max(32).default([]),
    dataDir: z.string().min(1),
    workspaceDir: z.string().min(1).optional(),
    gateway: z
      .object({
        port: z.number().int().min(0).max(65535).optional(),
        /**
         * The address agents use (the balancer's, e.g. https://miniharness.example.com; its /mcp is the
         * resource): every instance issues and accepts the agents' OAuth tokens for this one issuer.
         */
        publicUrl: z.url({ protocol: /^https?$/ }).optional(),
      })
      .strict()
      .default({}),
    oidc: z
      .object({
        issuer: z.url(),
        clientId: z.string().min(1).max(500),
        /** A file holding the client secret (else MINIHARNESS_OIDC_CLIENT_SECRET). */
        clientSecretFile: z.string().min(1).optional(),
      })
      .strict()
      .optional(),
    /** Roles by the person's e-mail or subject (`sub`); the first admin may come from the bootstrap token instead. */
    people: z.record(z.string().min(1).max(320), z.enum(ROLES)).default({}),
    /** Servers to add at start, as the contract's `servers.save` takes them (validated there). */
    servers: z.array(z.unknown()).max(500).default([]),
    /** Per-tool rules to set at start, as `permissions.setToolLevel` takes them. */
    rules: z.array(z.unknown()).max(5000).default([]),
    /**
     * Tokens for the command line and scripts (`MINIHARNESS_TOKEN`), each with a name and a role (admins also make
     * revocable ones on the People page: people.ts);
     * only the token's SHA-256 (hex) is written here (`printf %s "$TOKEN" | sha256sum`).
     */
    apiTokens: z
      .array(
        z
          .object({
            name: z.string().min(1).max(100),
            role: z.enum(ROLES),
            sha256: z.string().regex(/^[0-9a-f]{64}$/),
          })
          .strict(),
      )
      .max(100)
      .default([]),
    /** Sign-in attempts per client address per minute (default 20). */
    signInPerMinute: z.number().int().min(1).max(10_000).default(20),
  })
  .strict();

type ServeFileConfig = z.infer<typeof FileSchema>;

export interface ServeConfig extends Omit<ServeFileConfig, 'tls' | 'oidc'> {
  tls?: { cert: Buffer; key: Buffer };
  oidc?: { issuer: string; clientId: string; clientSecret: string };
  databaseUrl?: string;
}

/** A configuration that cannot be used; the message is a sentence for the operator (no secret in it). */
export class ServeConfigError extends Error {}

function readSecretFile(path: string, what: string): string {
  try {
    return readFileSync(path, 'utf8').trim();
  } catch (error) {
    throw new ServeConfigError(
      `Cannot read ${what} from ${path}: ${(error as NodeJS.ErrnoException).code ?? 'unreadable'}.`,
    );
  }
}

/** VAR, else the file named by VAR_FILE, else the config's file, else undefined. */
function secretOf(env: NodeJS.ProcessEnv, name: string, configFile?: string): string | undefined {
  if (env[name]) return env[name];
  const file = env[`${name}_FILE`] ?? configFile;
  return file ? readSecretFile(file, name) : undefined;
}

function overlayEnv(raw: Record<string, unknown>, env: NodeJS.ProcessEnv): Record<string, unknown> {
  const out = { ...raw };
  const listen = { ...(raw.listen as object | undefined) } as Record<string, unknown>;
  if (env.MINIHARNESS_LISTEN_HOST) listen.host = env.MINIHARNESS_LISTEN_HOST;
  if (env.MINIHARNESS_LISTEN_PORT) listen.port = Number(env.MINIHARNESS_LISTEN_PORT);
  if (Object.keys(listen).length > 0) out.listen = listen;
  if (env.MINIHARNESS_PUBLIC_URL) out.publicUrl = env.MINIHARNESS_PUBLIC_URL;
  if (env.MINIHARNESS_DATA_DIR) out.dataDir = env.MINIHARNESS_DATA_DIR;
  if (env.MINIHARNESS_TRUSTED_PROXIES)
    out.trustedProxies = env.MINIHARNESS_TRUSTED_PROXIES.split(',')
      .map((s) => s.trim())
      .filter(Boolean);
  if (env.MINIHARNESS_OIDC_ISSUER || env.MINIHARNESS_OIDC_CLIENT_ID) {
    out.oidc = {
      ...(raw.oidc as object | undefined),
      ...(env.MINIHARNESS_OIDC_ISSUER ? { issuer: env.MINIHARNESS_OIDC_ISSUER } : {}),
      ...(env.MINIHARNESS_OIDC_CLIENT_ID ? { clientId: env.MINIHARNESS_OIDC_CLIENT_ID } : {}),
    };
  }
  if (env.MINIHARNESS_TLS_CERT_FILE && env.MINIHARNESS_TLS_KEY_FILE)
    out.tls = { certFile: env.MINIHARNESS_TLS_CERT_FILE, keyFile: env.MINIHARNESS_TLS_KEY_FILE };
  return out;
}

/** Reads the file (when given), lays the environment over it, validates, and loads the secrets. */
export function loadServeConfig(file: string | undefined, env: NodeJS.ProcessEnv): ServeConfig {
  let raw: Record<string, unknown> = {};
  const base = file ? dirname(resolve(file)) : process.cwd();
  if (file) {
    try {
      raw = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
    } catch (error) {
      throw new ServeConfigError(`Cannot read the configuration ${file}: ${(error as Error).message}`);
    }
  }
  const parsed = FileSchema.safeParse(overlayEnv(raw, env));
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new ServeConfigError(
      `The configuration is not valid at "${issue?.path.join('.') || '(top)'}": ${issue?.message}.`,
    );
  }
  const { tls, oidc, ...rest } = parsed.data;
  const at = (path: string): string => resolve(base, path);
  const config: ServeConfig = {
    ...rest,
    dataDir: at(rest.dataDir),
    workspaceDir: rest.workspaceDir && at(rest.workspaceDir),
  };
  if (tls)
    config.tls = {
      cert: Buffer.from(readSecretFile(at(tls.certFile), 'the TLS certificate')),
      key: Buffer.from(readSecretFile(at(tls.keyFile), 'the TLS key')),
    };
  if (oidc) {
    const clientSecret = secretOf(
      env,
      'MINIHARNESS_OIDC_CLIENT_SECRET',
      oidc.clientSecretFile && at(oidc.clientSecretFile),
    );
    if (!clientSecret)
      throw new ServeConfigError(
        'The identity provider needs a client secret: set MINIHARNESS_OIDC_CLIENT_SECRET or MINIHARNESS_OIDC_CLIENT_SECRET_FILE.',
      );
    config.oidc = { issuer: oidc.issuer, clientId: oidc.clientId, clientSecret };
  }
  const databaseUrl = secretOf(env, 'MINIHARNESS_DATABASE_URL');
  if (databaseUrl) config.databaseUrl = databaseUrl;
  return config;
}
