/**
 * A tool's declared output schema, checked by the client itself on a call whose rounds it runs
 * (inputRounds.ts). The SDK checks it inside `callTool`, on every answer — an `input_required`
 * answer too, which carries no structured content and would fail — so those calls hand the SDK
 * the definition without its output schema, and the final, complete result is checked here with
 * the same rule and words: an error result is not checked; a success must carry structured
 * content that matches. Each schema is compiled once, not per call.
 */
import { ProtocolError, ProtocolErrorCode, fromJsonSchema } from '@modelcontextprotocol/client';
import type { JsonSchemaType } from '@modelcontextprotocol/client';
import type { ToolDescriptor } from './types.js';

/** The definition the SDK gets for such a call: everything but the output schema (header mirroring reads the input schema). */
export function withoutOutputSchema(tool: ToolDescriptor): ToolDescriptor {
  const { outputSchema: _outputSchema, ...rest } = tool;
  return rest;
}

/** Each output schema compiled once (a listing makes new definition objects, so a changed schema is compiled anew). */
const validators = new WeakMap<object, ReturnType<typeof fromJsonSchema>>();

function validatorOf(schema: NonNullable<ToolDescriptor['outputSchema']>): ReturnType<typeof fromJsonSchema> {
  let validator = validators.get(schema);
  if (!validator) {
    validator = fromJsonSchema(schema as JsonSchemaType);
    validators.set(schema, validator);
  }
  return validator;
}

/** Throws as the SDK would when a complete result does not fit the tool's output schema. */
export async function checkToolOutput(tool: ToolDescriptor | undefined, result: unknown): Promise<void> {
  if (!tool?.outputSchema || typeof result !== 'object' || result === null) return;
  const { structuredContent, isError } = result as { structuredContent?: unknown; isError?: unknown };
  if (isError === true) return;
  if (structuredContent === undefined)
    throw new ProtocolError(
      ProtocolErrorCode.InvalidRequest,
      `Tool ${tool.name} has an output schema but did not return structured content`,
    );
  let checked;
  try {
    checked = await validatorOf(tool.outputSchema)['~standard'].validate(structuredContent);
  } catch (error) {
    throw new ProtocolError(
      ProtocolErrorCode.InvalidParams,
      `Failed to validate structured content: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
  if (checked.issues)
    throw new ProtocolError(
      ProtocolErrorCode.InvalidParams,
      `Structured content does not match the tool's output schema: ${checked.issues.map((issue) => issue.message).join('; ')}`,
    );
}
