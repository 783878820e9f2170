/**
 * How large a tool's arguments may be, decided before anything else about the call (before the
 * schema check, the permission decision, any approval): a call the upstream cannot take is
 * refused here with the limit named (`request_too_large`), never sent.
 *
 * Every call, whoever makes it (the GUI over IPC or the bridge, an agent through the gateway in
 * either era), is held to MAX_TOOL_ARGS_BYTES — the contract's limit, which the gateway's 16 MiB
 * body limit alone did not apply. A stdio server takes less: the SDK's stdio servers (both
 * majors: STDIO_DEFAULT_MAX_BUFFER_SIZE) read at most 10 MiB per message and exit on a larger one,
 * failing every call in flight on that server — so a stdio server's arguments must leave room for
 * the request around them (the JSON-RPC envelope, the tool's name, `_meta`).
 */
import { STDIO_DEFAULT_MAX_BUFFER_SIZE } from '@modelcontextprotocol/server';
import type { ServerConfig } from '../../shared/serverConfig.js';
import { MAX_TOOL_ARGS_BYTES } from '../../shared/limits.js';
import { ArgumentsTooLargeError } from './errors.js';

/** Room kept for the rest of a tools/call message to a stdio server (envelope, name, `_meta`). */
const STDIO_ENVELOPE_ROOM_BYTES = 64 * 1024;

/** The largest arguments (UTF-8 bytes of their JSON) a stdio server is sent. */
export const MAX_STDIO_TOOL_ARGS_BYTES = STDIO_DEFAULT_MAX_BUFFER_SIZE - STDIO_ENVELOPE_ROOM_BYTES;

/** The limit for a call to `server` (undefined: a local tool), and how to say it. */
export function argumentLimitOf(server: ServerConfig | undefined): { limitBytes: number; why: string } {
  if (server?.transport === 'stdio')
    return { limitBytes: MAX_STDIO_TOOL_ARGS_BYTES, why: `"${server.name}" is a stdio server, which reads` };
  return { limitBytes: MAX_TOOL_ARGS_BYTES, why: 'a tool call carries' };
}

/** Throws ArgumentsTooLargeError when `args` are larger than `server` can take. */
export function refuseOversizedArguments(
  toolName: string,
  serverId: string,
  server: ServerConfig | undefined,
  args: Record<string, unknown>,
): void {
  const { limitBytes, why } = argumentLimitOf(server);
  // UTF-8 bytes of the JSON, as the wire carries them (Buffer.byteLength counts without copying).
  const sizeBytes = Buffer.byteLength(JSON.stringify(args) ?? '', 'utf8');
  if (sizeBytes > limitBytes) throw new ArgumentsTooLargeError(toolName, serverId, limitBytes, sizeBytes, why);
}
