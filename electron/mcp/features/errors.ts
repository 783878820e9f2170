/** The one error of the features part: a request for something the server did not declare. */
import { MCPError } from '../errors.js';

export type OfferedFeature = 'resources' | 'resource subscriptions' | 'prompts' | 'completions';

export class MCPFeatureNotOfferedError extends MCPError {
  readonly code = 'not_offered';
  constructor(
    serverId: string,
    readonly feature: OfferedFeature,
  ) {
    super(`Server "${serverId}" does not offer ${feature}: it did not declare them when it connected.`, serverId);
  }
}
