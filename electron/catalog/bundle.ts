/**
 * An `mcpb` package (an MCP Bundle: a zip with a manifest.json): downloaded over https (or from
 * a loopback address), its SHA-256 checked against the entry's `fileSha256` before anything is
 * unpacked (a mismatch refuses the install and names both hashes), then unpacked into the
 * server's own folder with every path checked to stay inside it (JSZip reads the archive; it
 * writes nothing itself). The manifest's `server.mcp_config` says how to start it.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve, sep } from 'node:path';
import JSZip from 'jszip';
import { z } from 'zod';
import { CatalogError } from './errors.js';

const MAX_BUNDLE_BYTES = 200 * 1024 * 1024;
const MAX_UNPACKED_BYTES = 1024 * 1024 * 1024;
const DOWNLOAD_TIMEOUT_MS = 120_000;

const ManifestSchema = z.looseObject({
  name: z.string().max(200).optional(),
  server: z.looseObject({
    type: z.enum(['node', 'python', 'binary', 'uv']).or(z.string().max(50)),
    entry_point: z.string().max(1000),
    mcp_config: z
      .looseObject({
        command: z.string().min(1).max(1000),
        args: z.array(z.string().max(10_000)).max(200).default([]),
        env: z.record(z.string().max(200), z.string().max(10_000)).default({}),
      })
      .optional(),
  }),
});

export interface UnpackedBundle {
  command: string;
  args: string[];
  env: Record<string, string>;
}

function isLoopback(url: URL): boolean {
  return url.hostname === '127.0.0.1' || url.hostname === '[::1]' || url.hostname === 'localhost';
}

/** Downloads the bundle and checks its hash; nothing is written before the hash matches. */
export async function downloadBundle(identifier: string, expectedSha256: string): Promise<Buffer> {
  const url = new URL(identifier);
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && isLoopback(url)))
    throw new CatalogError('not_supported', `The bundle's address must be https: ${url.origin}.`);
  let bytes: Buffer;
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(DOWNLOAD_TIMEOUT_MS) });
    if (!response.ok)
      throw new CatalogError('bad_response', `Downloading the bundle answered HTTP ${response.status}.`);
    const declared = Number(response.headers.get('content-length') ?? NaN);
    if (declared > MAX_BUNDLE_BYTES) throw new CatalogError('bad_response', 'The bundle is larger than 200 MB.');
    bytes = Buffer.from(await response.arrayBuffer());
  } catch (error) {
    if (error instanceof CatalogError) throw error;
    throw new CatalogError('unreachable', `The bundle could not be downloaded from ${url.origin}.`);
  }
  if (bytes.byteLength > MAX_BUNDLE_BYTES) throw new CatalogError('bad_response', 'The bundle is larger than 200 MB.');
  const actual = createHash('sha256').update(bytes).digest('hex');
  if (actual !== expectedSha256)
    throw new CatalogError(
      'package_hash_mismatch',
      `The downloaded bundle's SHA-256 is ${actual}, but the registry entry says ${expectedSha256}. Nothing was installed.`,
    );
  return bytes;
}

/** Unpacks into `dir` (emptied first) and reads how to start the server. */
export async function unpackBundle(bytes: Buffer, dir: string): Promise<UnpackedBundle> {
  let zip: JSZip;
  try {
    zip = await JSZip.loadAsync(bytes);
  } catch {
    throw new CatalogError('bad_response', 'The bundle is not a zip archive.');
  }
  const manifestFile = zip.file('manifest.json');
  if (!manifestFile) throw new CatalogError('bad_response', 'The bundle has no manifest.json.');
  let manifest: z.infer<typeof ManifestSchema>;
  try {
    manifest = ManifestSchema.parse(JSON.parse(await manifestFile.async('string')));
  } catch {
    throw new CatalogError('bad_response', "The bundle's manifest.json is not a valid MCP Bundle manifest.");
  }
  const root = resolve(dir);
  // Every path is checked before the first file is written.
  for (const entry of Object.values(zip.files)) {
    const target = resolve(root, entry.name);
    if (target !== root && !target.startsWith(root + sep))
      throw new CatalogError('bad_response', `The bundle names a file outside its folder (${entry.name}); refused.`);
  }
  rmSync(root, { recursive: true, force: true });
  mkdirSync(root, { recursive: true, mode: 0o700 });
  let total = 0;
  for (const entry of Object.values(zip.files)) {
    const target = resolve(root, entry.name);
    if (entry.dir) {
      mkdirSync(target, { recursive: true, mode: 0o700 });
      continue;
    }
    const content = await entry.async('nodebuffer');
    total += content.byteLength;
    if (total > MAX_UNPACKED_BYTES) throw new CatalogError('bad_response', 'The bundle unpacks to more than 1 GB.');
    mkdirSync(dirname(target), { recursive: true, mode: 0o700 });
    // Executable bits kept for `binary` servers (zip stores them in the upper bits of the external attributes).
    const mode = ((entry.unixPermissions as number | null) ?? 0o600) & 0o700;
    writeFileSync(target, content, { mode: mode || 0o600 });
  }
  return startOf(manifest, root);
}

function startOf(manifest: z.infer<typeof ManifestSchema>, root: string): UnpackedBundle {
  const fill = (text: string) => text.replaceAll('${__dirname}', root);
  const config = manifest.server.mcp_config;
  if (config) {
    const env = Object.fromEntries(Object.entries(config.env).map(([k, v]) => [k, fill(v)]));
    return { command: fill(config.command), args: config.args.map(fill), env };
  }
  const entry = join(root, manifest.server.entry_point);
  if (manifest.server.type === 'node') return { command: 'node', args: [entry], env: {} };
  if (manifest.server.type === 'python') return { command: 'python3', args: [entry], env: {} };
  return { command: entry, args: [], env: {} };
}
