/**
 * The protocol features 2026-07-28 deprecates (SEP-2577) that this app still offers: server logs
 * (`logging/setLevel`, `notifications/message`), sampling and roots. They stay in the
 * specification for at least twelve months, every legacy server uses them, and a modern server
 * may still ask for them (`input_required`). The SDK marks their types deprecated; this is the one
 * place that names them, so the rest of the MCP layer uses the app's names and the lint rule
 * keeps guarding everything else.
 */
/* eslint-disable @typescript-eslint/no-deprecated -- see above: the app keeps these features in both eras */
import type { CreateMessageRequestParams, CreateMessageResult, LoggingLevel, Root } from '@modelcontextprotocol/client';

/** An MCP log level (`debug` … `emergency`). */
export type LogLevel = LoggingLevel;
/** A sampling request's parameters. */
export type SamplingParams = CreateMessageRequestParams;
/** A sampling answer. */
export type SamplingResult = CreateMessageResult;
/** One root offered to a server. */
export type RootEntry = Root;
