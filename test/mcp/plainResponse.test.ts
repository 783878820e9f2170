/**
 * A stdio server's plain result response is taken without the SDK's zod union (issue 33;
 * mcp/plainResponse.ts) — and only when the SDK's own parse would give the very same message.
 * Held against `parseJSONRPCMessage` over the edge cases: whatever the fast path takes equals the
 * SDK's answer (deep and as JSON), and whatever it leaves is answered by the SDK (same value, same
 * refusal). Then through the real transport: a line from a child process reaches the client so.
 */
import { parseJSONRPCMessage } from '@modelcontextprotocol/client';
import { describe, expect, it } from 'vitest';
import { plainResultResponse, toJsonRpcMessage } from '../../electron/mcp/plainResponse.js';
import { ProcessStdioTransport } from '../../electron/mcp/stdioTransport.js';

/** What `parse` answers for `value`: the message, or the name of the error it throws. */
const answer = (parse: (value: unknown) => unknown, value: unknown): { value: unknown } | { refused: string } => {
  try {
    return { value: parse(value) };
  } catch (error) {
    return { refused: (error as Error).name };
  }
};

/** Taken by the fast path: plain result responses. */
const plain: string[] = [
  '{"jsonrpc":"2.0","id":1,"result":{}}',
  '{"jsonrpc":"2.0","id":"a-1","result":{"content":[{"type":"text","text":"hi"}]}}',
  '{"result":{"content":[],"isError":true},"id":0,"jsonrpc":"2.0"}',
  '{"id":-7,"jsonrpc":"2.0","result":{"z":1,"a":{"_meta":{"deep":true}},"m":[1,2]}}',
  '{"jsonrpc":"2.0","id":9007199254740991,"result":{"tools":[]}}',
  '{"jsonrpc":"2.0","id":"","result":{"resultType":"complete","content":[]}}',
];

/** Left to the SDK: everything else, valid or not. */
const others: string[] = [
  '{"jsonrpc":"2.0","id":1,"result":{"_meta":{"progressToken":1}}}',
  '{"jsonrpc":"2.0","id":1,"result":{"_meta":{"io.modelcontextprotocol/serverInfo":{"name":3}}}}',
  '{"jsonrpc":"2.0","id":1,"result":{"_meta":null}}',
  '{"jsonrpc":"2.0","id":1,"result":[]}',
  '{"jsonrpc":"2.0","id":1,"result":null}',
  '{"jsonrpc":"2.0","id":1,"result":"text"}',
  '{"jsonrpc":"2.0","id":1.5,"result":{}}',
  '{"jsonrpc":"2.0","id":null,"result":{}}',
  '{"jsonrpc":"2.0","id":9007199254740993,"result":{}}',
  '{"jsonrpc":"2.0","result":{}}',
  '{"jsonrpc":"1.0","id":1,"result":{}}',
  '{"id":1,"result":{}}',
  '{"jsonrpc":"2.0","id":1,"result":{},"extra":1}',
  '{"jsonrpc":"2.0","id":1,"result":{},"error":{"code":1,"message":"x"}}',
  '{"jsonrpc":"2.0","id":1,"result":{},"__proto__":{"polluted":1}}',
  '{"jsonrpc":"2.0","id":1,"result":{"__proto__":{"x":1},"a":1}}',
  '{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"no"}}',
  '{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":1,"progress":1}}',
  '{"jsonrpc":"2.0","id":3,"method":"sampling/createMessage","params":{}}',
  '[{"jsonrpc":"2.0","id":1,"result":{}}]',
  '"2.0"',
  'null',
];

describe('a plain result response, without the SDK’s zod union', () => {
  it.each(plain)('takes %s, giving what the SDK’s parse gives', (line) => {
    const fast = plainResultResponse(JSON.parse(line));
    const expected = parseJSONRPCMessage(JSON.parse(line));
    expect(fast).toBeDefined();
    expect(fast).toStrictEqual(expected);
    expect(JSON.stringify(fast)).toBe(JSON.stringify(expected));
  });

  it.each(others)('leaves %s to the SDK, answered as the SDK answers it', (line) => {
    expect(plainResultResponse(JSON.parse(line))).toBeUndefined();
    const expected = answer(parseJSONRPCMessage, JSON.parse(line));
    const actual = answer(toJsonRpcMessage, JSON.parse(line));
    expect(actual).toStrictEqual(expected);
    if ('value' in expected)
      expect(JSON.stringify((actual as { value: unknown }).value)).toBe(JSON.stringify(expected.value));
  });

  it('a response from a real child process reaches the client as the message the server wrote; a bad line is a violation', async () => {
    const script = [
      `process.stdout.write(${JSON.stringify('{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"ok"}]}}\n')});`,
      `process.stdout.write(${JSON.stringify('{"jsonrpc":"2.0","id":2,"result":{},"extra":true}\n')});`,
      `process.stdout.write(${JSON.stringify('{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"x"}}\n')});`,
      'process.stdin.resume(); process.stdin.on("end", () => process.exit(0));',
    ].join('\n');
    const violations: string[] = [];
    const transport = new ProcessStdioTransport({
      command: process.execPath,
      args: ['-e', script],
      env: {},
      maxLineBytes: 1 << 20,
      tooLarge: () => new Error('too large'),
      onViolation: (error) => violations.push(error.name),
    });
    const messages: unknown[] = [];
    const both = new Promise<void>((resolve) => {
      transport.onmessage = (message) => {
        messages.push(message);
        if (messages.length === 2) resolve();
      };
    });
    await transport.start();
    await both;
    await transport.close();
    expect(messages).toStrictEqual([
      { jsonrpc: '2.0', id: 1, result: { content: [{ type: 'text', text: 'ok' }] } },
      { jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: 'x' } },
    ]);
    expect(violations).toEqual(['ZodError']);
  });
});
