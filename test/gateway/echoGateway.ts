/**
 * A gateway alone, in front of one tool (`echo` of server `fx`) whose calls the test decides, and
 * one agent allowed all servers: the boundary tests post raw bodies to it and check what reached
 * the calls.
 */
import { join } from 'node:path';
import { toErrorShape } from '../../electron/core/errors.js';
import { AgentStore } from '../../electron/gateway/agentStore.js';
import { GatewayCatalog } from '../../electron/gateway/catalog.js';
import type { GatewayCalls } from '../../electron/gateway/agentServer.js';
import { Gateway } from '../../electron/gateway/gateway.js';
import { openConfConfigStore } from '../../electron/web/confConfigStore.js';
import { ALL_SERVERS } from './support.js';

export interface EchoGateway {
  gateway: Gateway;
  url: URL;
  /** The one agent's bearer token. */
  token: string;
}

export async function startEchoGateway(
  dataDir: string,
  agentName: string,
  call: GatewayCalls['call'],
): Promise<EchoGateway> {
  const agents = new AgentStore(openConfConfigStore(join(dataDir, 'data')), () => undefined);
  const token = agents.create(agentName, ALL_SERVERS).token;
  const gateway = new Gateway({
    agents,
    catalog: new GatewayCatalog(
      () => [{ name: 'echo', serverId: 'fx', description: 'echo', inputSchema: { type: 'object' } }] as never,
    ),
    calls: { call },
    describe: (error) => toErrorShape(error),
    version: '0.0.0-test',
    stdio: { command: 'miniharness-gateway', args: [] },
    onChange: () => undefined,
  });
  return { gateway, url: new URL((await gateway.start(0)).url), token };
}
