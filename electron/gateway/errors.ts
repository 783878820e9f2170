/**
 * Errors of the agent gateway, each with its contract code: a server that would call the gateway
 * itself, an agent name already used, an agent that does not exist.
 */
import { CodedError } from '../util/codedError.js';

export type GatewayErrorCode = 'gateway_loop' | 'agent_name_taken' | 'not_found';

abstract class GatewayError extends CodedError<GatewayErrorCode> {}

/** A server configured to reach MiniHarness's own gateway: calls would go round in a loop. */
export class GatewayLoopError extends GatewayError {
  readonly code = 'gateway_loop';
  readonly details: { fieldErrors: Record<string, string[]> };
  constructor(field: string) {
    super(
      'This server points at MiniHarness’s own agent gateway: its calls would come back here in a loop. Connect the agent to the gateway instead.',
    );
    this.details = { fieldErrors: { [field]: ['points at MiniHarness’s own agent gateway'] } };
  }
}

export class AgentNameTakenError extends GatewayError {
  readonly code = 'agent_name_taken';
  readonly details: { fieldErrors: Record<string, string[]> };
  constructor(name: string) {
    super(`An agent named "${name}" is already registered. Choose another name.`);
    this.details = { fieldErrors: { name: ['is already used by another agent'] } };
  }
}

export class AgentNotFoundError extends GatewayError {
  readonly code = 'not_found';
  constructor(id: string) {
    super(`No agent "${id}" is registered.`);
  }
}
