/** The stdio entry's one sentence per relay failure (what the agent's log shows the person). */
import { describe, expect, it } from 'vitest';
import { SdkErrorCode, SdkHttpError } from '@modelcontextprotocol/client';
import { START_INSTALLED_APP, describeRelayFailure } from '../../electron/gateway/stdioProxy.js';
import { GATEWAY_TOKEN_ENV } from '../../shared/agents.js';
import { freePort } from './ports.js';

const URL_ = new URL('http://127.0.0.1:47813/mcp');

/** The error the SDK's (v2) Streamable HTTP transport throws for a refused POST. */
function httpError(status: number, message: string): SdkHttpError {
  const code =
    status === 401
      ? SdkErrorCode.ClientHttpAuthentication
      : status === 403
        ? SdkErrorCode.ClientHttpForbidden
        : SdkErrorCode.ClientHttpNotImplemented;
  return new SdkHttpError(code, message, { status });
}

/** The error fetch really throws for a loopback port nobody listens on. */
async function refusedFetchError(): Promise<unknown> {
  try {
    await fetch(`http://127.0.0.1:${await freePort()}/mcp`);
  } catch (error) {
    return error;
  }
  throw new Error('expected the fetch to fail');
}

describe('describeRelayFailure', () => {
  it('401: the token of the named agent was refused, and where to get one', () => {
    expect(describeRelayFailure(httpError(401, 'Unauthorized'), 'Claude Desktop', URL_)).toBe(
      `MiniHarness refused the token of agent "Claude Desktop": create the agent (or a new token) in MiniHarness → Agents and set ${GATEWAY_TOKEN_ENV}.`,
    );
  });

  it('403 and 404 name the URL to check; another status is passed on', () => {
    expect(describeRelayFailure(httpError(403, 'Forbidden'), 'a', URL_)).toBe(
      'MiniHarness refused the request (403): the gateway only accepts 127.0.0.1 and localhost at http://127.0.0.1:47813.',
    );
    expect(
      describeRelayFailure(
        httpError(404, 'Error POSTing to endpoint: Not Found'),
        'a',
        new URL('http://127.0.0.1:47813/wrong'),
      ),
    ).toBe(
      "MiniHarness answered 404 at http://127.0.0.1:47813/wrong: check the --url (the gateway is at /mcp); a 2025 agent's session may have ended — restart the agent.",
    );
    expect(describeRelayFailure(httpError(405, 'Method Not Allowed'), 'a', URL_)).toBe(
      'MiniHarness answered 405 at http://127.0.0.1:47813/mcp: without a 2025 session the gateway takes POST only — restart the agent.',
    );
    expect(describeRelayFailure(httpError(500, 'Error POSTing to endpoint: Internal'), 'a', URL_)).toBe(
      "MiniHarness's gateway answered HTTP 500: Error POSTing to endpoint: Internal",
    );
  });

  it('a refused connection is the app not running: exactly one sentence', async () => {
    expect(describeRelayFailure(await refusedFetchError(), 'a', URL_)).toBe(
      'MiniHarness is not running: start it with npm start.',
    );
    // An installed app's own entry (`--gateway-stdio`) tells its person to open the app instead.
    expect(describeRelayFailure(await refusedFetchError(), 'a', URL_, START_INSTALLED_APP)).toBe(
      'MiniHarness is not running: open MiniHarness Desktop.',
    );
  });

  it('any other failure says where it could not reach, and why', () => {
    expect(describeRelayFailure(new Error('socket hang up'), 'a', URL_)).toBe(
      "MiniHarness's gateway at http://127.0.0.1:47813/mcp could not be reached: socket hang up",
    );
    expect(describeRelayFailure('odd', 'a', URL_)).toBe(
      "MiniHarness's gateway at http://127.0.0.1:47813/mcp could not be reached: odd",
    );
  });
});
