// What /mcp offers beside the tools: completion of a parameter's values from the catalog (through one
// prompt per tool, since MCP completes prompt arguments, not tool arguments), progress notifications for a
// client that gives a progress token (the long tools' wait told as it goes), and the origins a browser may
// use by default: both localhost and 127.0.0.1 of the configured port.
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { KEYS, listen } from '../helpers/app.js';
import { mcpClient } from '../helpers/mcp.js';
import { upstreamSuite } from '../helpers/upstream-suite.js';

const s = upstreamSuite({
  upstreams: {
    pollinations: {
      keys: 'pool-key-1',
      routes: {
        // A generation that takes 3.5 s: long enough for progress while it is awaited.
        'POST /v1/chat/completions': () => ({
          delayMs: 3500,
          json: { model: 'openai', choices: [{ index: 0, message: { role: 'assistant', content: 'Waves fold in light.' } }] },
        }),
      },
    },
  },
});

let server: Awaited<ReturnType<typeof listen>>;
let client: Client;
beforeAll(async () => {
  server = await listen(s.t.app);
  client = await mcpClient(server.url, { 'X-API-Key': KEYS.premium });
});
afterAll(async () => {
  await client.close();
  await server.close();
});

describe('completion/complete offers the catalog values of a parameter', () => {
  test('the server says it completes, and lists one prompt per tool', async () => {
    expect(client.getServerCapabilities()).toMatchObject({ completions: {}, prompts: {} });
    const { prompts } = await client.listPrompts();
    const scheme = prompts.find((p) => p.name === 'art-design_color-scheme');
    expect(scheme?.arguments).toEqual(expect.arrayContaining([expect.objectContaining({ name: 'scheme', required: false })]));
  });

  test("an enum's values that start with what was typed", async () => {
    const r = await client.complete({
      ref: { type: 'ref/prompt', name: 'art-design_color-scheme' },
      argument: { name: 'scheme', value: 'mono' },
    });
    expect(r.completion.values).toEqual(['monochrome', 'monochrome-dark', 'monochrome-light']);
    expect(r.completion).toMatchObject({ total: 3, hasMore: false });
  });

  test('every value of the enum when nothing was typed, numbers as text', async () => {
    const r = await client.complete({
      ref: { type: 'ref/prompt', name: 'cloud-storage_paste-host' },
      argument: { name: 'private', value: '' },
    });
    expect(r.completion.values).toEqual(['0', '1']);
  });

  test("a parameter without an enum offers the catalog's examples", async () => {
    const r = await client.complete({ ref: { type: 'ref/prompt', name: 'tools_ccgen' }, argument: { name: 'bin', value: '4' } });
    expect(r.completion.values).toEqual(['457173']);
  });

  test('an unknown prompt or parameter has no suggestions', async () => {
    const r = await client.complete({ ref: { type: 'ref/prompt', name: 'no_such_tool' }, argument: { name: 'x', value: '' } });
    expect(r.completion.values).toEqual([]);
  });

  test("a prompt's message asks to call its tool with the arguments given", async () => {
    const r = await client.getPrompt({ name: 'tools_ccgen', arguments: { bin: '457173' } });
    expect(r.messages[0].content).toEqual({
      type: 'text',
      text: expect.stringContaining('tools_ccgen with the arguments {"bin":"457173"}'),
    });
  });
});

describe('progress notifications for a client that gives a progress token', () => {
  async function callWithProgress(name: string, args: Record<string, unknown>) {
    const seen: Array<{ progress: number; total?: number; message?: string }> = [];
    const result = await client.request({ method: 'tools/call', params: { name, arguments: args } }, CallToolResultSchema, {
      onprogress: (p) => seen.push(p),
    });
    return { result, seen };
  }

  test('a long tool tells its progress while the answer is awaited, each value larger, the last the total', async () => {
    const { result, seen } = await callWithProgress('gen-models_chat-01', { q: 'Write a haiku about the sea' });
    expect(result.isError).toBeFalsy();
    expect(seen.length).toBeGreaterThanOrEqual(4); // the start, at least two waits of 1 s, the end
    const values = seen.map((p) => p.progress);
    expect(values).toEqual([...values].sort((a, b) => a - b));
    expect(new Set(values).size).toBe(values.length);
    expect(seen[0].progress).toBe(0);
    expect(seen.at(-1)).toMatchObject({ progress: 120, total: 120 }); // chat-01's budget: timeout 120s
  });

  test('a quick tool tells its start and its end', async () => {
    const { result, seen } = await callWithProgress('tools_ccgen', { bin: '457173' });
    expect(result.isError).toBeFalsy();
    // The start and the end (a wait of a second or more in between would add a step).
    expect(seen[0].progress).toBe(0);
    expect(seen.at(-1)).toMatchObject({ progress: 30, total: 30 });
  });

  test('without a token the answer is plain JSON, no progress', async () => {
    const res = await fetch(`${server.url}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'x-api-key': KEYS.premium },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'tools_ccgen', arguments: { bin: '457173' } } }),
    });
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    const body = (await res.json()) as { id: number; result: { content: Array<{ type: string }> } };
    expect(body.id).toBe(1);
    expect(body.result.content[0].type).toBe('text');
  });
});

describe('origins a browser may use by default', () => {
  // The app's PUBLIC_URL is http://127.0.0.1:3999 and its PORT the default 3000 (tests/helpers/app.ts).
  const initialize = (origin: string) =>
    fetch(`${server.url}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'x-api-key': KEYS.premium, origin },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'page', version: '1' } },
      }),
    });
  test.each(['http://localhost:3000', 'http://127.0.0.1:3000', 'http://127.0.0.1:3999'])('%s is accepted', async (origin) => {
    expect((await initialize(origin)).status).toBe(200);
  });
  test.each(['http://evil.example', 'http://localhost:4000'])('%s is refused', async (origin) => {
    const res = await initialize(origin);
    expect(res.status).toBe(403);
    expect(await res.json()).toMatchObject({ success: false, code: 'forbidden' });
  });
});
