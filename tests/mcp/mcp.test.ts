// /mcp with the SDK's own client over HTTP against the running app: initialize, the tool list (pages of
// whole categories, every schema compiled by ajv), calls compared with REST, speech as decodable MP3 audio
// content, the spec's messages as tool errors, keys refused at connection, and one counter for REST and MCP.
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { MPEGDecoder } from 'mpg123-decoder';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { KEYS, listen, testApp, type TestApp } from '../helpers/app.js';
import { listPages, mcpClient } from '../helpers/mcp.js';

const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;

interface Running {
  t: TestApp;
  url: string;
  close(): Promise<void>;
}

async function running(env: Record<string, string> = {}): Promise<Running> {
  const t = await testApp(env);
  const server = await listen(t.app);
  return {
    t,
    url: server.url,
    close: async () => {
      await server.close();
      await t.close();
    },
  };
}

const call = (client: Client, name: string, args: Record<string, unknown>) =>
  client.callTool({ name, arguments: args }) as Promise<CallToolResult>;
const textOf = (r: CallToolResult) =>
  r.content
    .filter((c) => c.type === 'text')
    .map((c) => (c as { text: string }).text)
    .join('\n');

describe('the catalog as MCP tools', () => {
  let r: Running;
  let client: Client;
  beforeAll(async () => {
    // Pages of at most 40 tools, so the list spans several (the default of 100 holds the catalog in one).
    r = await running({ MCP_PAGE_SIZE: '40' });
    client = await mcpClient(r.url, { 'X-API-Key': KEYS.premium });
  });
  afterAll(async () => {
    await client.close();
    await r.close();
  });

  it('initializes as the service, offering tools', () => {
    expect(client.getServerVersion()).toEqual({ name: 'Unified Utility API', version: expect.any(String) });
    expect(client.getServerCapabilities()?.tools).toBeDefined();
    expect(client.getInstructions()).toMatch(/one request of your key's plan/);
  });

  it('lists all 79 endpoints, a category never split across pages, each schema compiled by ajv', async () => {
    const pages = await listPages(client);
    expect(pages.length).toBeGreaterThan(1);
    const tools = pages.flat();
    expect(tools).toHaveLength(79);
    expect(new Set(tools.map((t) => t.name)).size).toBe(79);
    expect(tools.map((t) => t.name)).toEqual(
      expect.arrayContaining(['tools_ccgen', 'tools_fake-address', 'tts_generate', 'gen-models_image-01']),
    );
    const pageOfCategory = new Map<string, number>();
    pages.forEach((page, i) =>
      page.forEach((t) => {
        const category = (t._meta as { category: string }).category;
        expect(pageOfCategory.get(category) ?? i).toBe(i);
        pageOfCategory.set(category, i);
      }),
    );
    // A strict ajv on the JSON Schema dialect MCP assumes (2020-12): any keyword it does not know fails.
    const ajv = addFormats(new Ajv2020({ strict: true, strictTypes: false, strictRequired: false }));
    for (const t of tools) {
      expect(t.name).toMatch(/^[A-Za-z0-9_.-]{1,128}$/);
      expect(t.inputSchema.type).toBe('object');
      expect(() => ajv.compile(t.inputSchema)).not.toThrow();
      expect(() => ajv.compile(t.outputSchema!)).not.toThrow();
      for (const p of Object.values(t.inputSchema.properties ?? {}))
        expect((p as { description?: string }).description).toEqual(expect.any(String));
    }
  });

  it('tools_ccgen answers what GET /api/v1/tools/ccgen answers', async () => {
    const rest = (await (await fetch(`${r.url}/api/v1/tools/ccgen?bin=457173`, { headers: { 'X-API-Key': KEYS.premium } })).json()) as {
      data: Record<string, unknown>;
    };
    const res = await call(client, 'tools_ccgen', { bin: '457173' });
    expect(res.isError).toBeFalsy();
    const data = res.structuredContent as { bin: string; brand: string; length: number; cards: string[] };
    // The cards are random; everything else is the same answer.
    expect({ ...data, cards: undefined }).toEqual({ ...rest.data, cards: undefined });
    expect(data.cards.length).toBe((rest.data.cards as string[]).length);
    expect(data.cards.every((c) => c.startsWith('457173'))).toBe(true);
    expect(JSON.parse(textOf(res))).toEqual(data);
    expect(res._meta).toMatchObject({ success: true, source: 'embedded', metadata: { endpoint: 'tools/ccgen', cached: false } });
  });

  it('tools_fake-address answers what GET /api/v1/tools/fake-address answers', async () => {
    const rest = (await (
      await fetch(`${r.url}/api/v1/tools/fake-address?country=DE`, { headers: { 'X-API-Key': KEYS.premium } })
    ).json()) as { data: Record<string, unknown> };
    const res = await call(client, 'tools_fake-address', { country: 'DE' });
    expect(res.isError).toBeFalsy();
    const data = res.structuredContent!;
    expect(Object.keys(data).sort()).toEqual(Object.keys(rest.data).sort());
    expect(data.currency).toBe(rest.data.currency);
    expect(data.currency).toBe('EUR');
  });

  it('tts_generate gives its MP3 as audio content that decodes to speech', async () => {
    const res = await call(client, 'tts_generate', { text: 'Hello world, this is a short test of the speech service.', lang: 'en' });
    expect(res.isError).toBeFalsy();
    const audio = res.content.find((c) => c.type === 'audio') as { data: string; mimeType: string };
    expect(audio.mimeType).toBe('audio/mpeg');
    const mp3 = Buffer.from(audio.data, 'base64');
    expect(mp3.length).toBe((res.structuredContent as { bytes: number }).bytes);
    const decoder = new MPEGDecoder();
    await decoder.ready;
    try {
      const { channelData, samplesDecoded, sampleRate } = decoder.decode(new Uint8Array(mp3));
      const seconds = samplesDecoded / sampleRate;
      const rms = Math.sqrt(channelData[0].slice(0, samplesDecoded).reduce((s, v) => s + v * v, 0) / samplesDecoded);
      expect(seconds).toBeGreaterThan(1);
      expect(rms).toBeGreaterThan(0.01);
    } finally {
      decoder.free();
    }
  });

  it("an image the answer carries (noise-image's data: URL) is image content; re-hosted by image-host, it is image content again", async () => {
    const noise = await call(client, 'art-design_noise-image', {});
    const image = noise.content.find((c) => c.type === 'image') as { data: string; mimeType: string };
    expect(image.mimeType).toBe('image/png');
    const png = Buffer.from(image.data, 'base64');
    expect(png.subarray(1, 4).toString()).toBe('PNG');
    const hosted = await call(client, 'cloud-storage_image-host', { image: image.data });
    expect(hosted.isError).toBeFalsy();
    const again = hosted.content.find((c) => c.type === 'image') as { data: string; mimeType: string };
    expect(again).toMatchObject({ mimeType: 'image/png' });
    expect(Buffer.from(again.data, 'base64').equals(png)).toBe(true);
    // The image's own page is a link, not an image.
    expect(hosted.content).toContainEqual(
      expect.objectContaining({
        type: 'resource_link',
        uri: (hosted.structuredContent as { url_viewer: string }).url_viewer,
        mimeType: 'text/html',
      }),
    );
  });

  it('hosted files that are not media are resource links to their URL; a file goes up as base64', async () => {
    const paste = await call(client, 'cloud-storage_paste-host', { paste: 'hello from an agent' });
    const data = paste.structuredContent as { url: string; raw_url: string };
    expect(paste.content).toContainEqual({ type: 'resource_link', uri: data.url, name: expect.any(String), mimeType: 'text/html' });
    expect(paste.content).toContainEqual({ type: 'resource_link', uri: data.raw_url, name: 'raw', mimeType: 'text/plain' });
    const file = await call(client, 'cloud-storage_file-host', { file: Buffer.from('ten bytes!').toString('base64') });
    expect(file.isError).toBeFalsy();
    const hosted = file.structuredContent as { size: number; directLink: string };
    expect(hosted.size).toBe(10);
    expect(file.content).toContainEqual(expect.objectContaining({ type: 'resource_link', uri: hosted.directLink }));
    const bytes = await fetch(hosted.directLink.replace('http://127.0.0.1:3999', r.url));
    expect(await bytes.text()).toBe('ten bytes!');
  });

  it("a missing required argument is a tool error with the spec's message", async () => {
    const res = await call(client, 'tools_ccgen', {});
    expect(res.isError).toBe(true);
    expect(textOf(res)).toBe('Missing required parameter: bin');
    expect(res._meta).toMatchObject({ status: 400, code: 'bad_input' });
  });

  it('a broken bound is a tool error naming the parameter and the rule', async () => {
    const res = await call(client, 'tools_ccgen', { bin: '12' });
    expect(res.isError).toBe(true);
    expect(textOf(res)).toBe('Invalid value for bin: must be 6 to 8 digits');
  });

  it('an unknown tool is a protocol error', async () => {
    await expect(call(client, 'tools_nothing', {})).rejects.toThrow(/Unknown tool: tools_nothing/);
  });

  it('an endpoint whose upstream is not configured is listed with a note; one with a working fallback is not', async () => {
    const tools = (await listPages(client)).flat();
    const chat = tools.find((t) => t.name === 'ai_chat-1')!;
    expect(chat.description).toMatch(/Not configured on this server: the operator must set UPSTREAM_OPENAI_COMPAT_URL/);
    expect(chat._meta).toMatchObject({ configured: false });
    expect(tools.find((t) => t.name === 'downloaders_dl-a')!.description).toMatch(/UPSTREAM_COBALT_URL/);
    expect(tools.find((t) => t.name === 'downloaders_dl-d')!._meta).toMatchObject({ configured: true });
    expect(tools.find((t) => t.name === 'tools_ccgen')!._meta).toMatchObject({ configured: true });
  });

  it('the key can come as Authorization: Bearer', async () => {
    const bearer = await mcpClient(r.url, { Authorization: `Bearer ${KEYS.enterprise}` });
    const res = await call(bearer, 'tools_ccgen', { bin: '378282' });
    expect(res.isError).toBeFalsy();
    expect(res._meta).toMatchObject({ rateLimit: { limit: expect.any(Number), remaining: expect.any(Number) } });
    await bearer.close();
  });

  it("an invalid or missing key is refused at connection with the spec's message", async () => {
    await expect(mcpClient(r.url, { 'X-API-Key': 'not-a-key' })).rejects.toThrow(/Invalid apikey/);
    await expect(mcpClient(r.url, {})).rejects.toThrow(/Missing apikey parameter/);
  });

  it("a browser origin other than the service's own is refused (DNS rebinding), before any key is read", async () => {
    await expect(mcpClient(r.url, { 'X-API-Key': KEYS.premium, Origin: 'http://evil.example' })).rejects.toThrow(
      /Origin http:\/\/evil.example may not use \/mcp/,
    );
    const own = await mcpClient(r.url, { 'X-API-Key': KEYS.premium, Origin: 'http://127.0.0.1:3999' });
    expect((await call(own, 'tools_ccgen', { bin: '457173' })).isError).toBeFalsy();
    await own.close();
  });

  it('params that do not fit their method are -32602 naming the field, not -32603 with a validation dump', async () => {
    const post = (body: unknown) =>
      fetch(`${r.url}/mcp`, {
        method: 'POST',
        headers: { 'X-API-Key': KEYS.premium, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: JSON.stringify(body),
      });
    const one = await post({ jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'tools_ccgen', arguments: 'bin=457173' } });
    const answer = (await one.json()) as { id: number; error: { code: number; message: string } };
    expect(answer).toMatchObject({ id: 7, error: { code: -32602 } });
    expect(answer.error.message).toMatch(/^Invalid params: params\.arguments: /);
    expect(answer.error.message.length).toBeLessThan(200);
    const batch = (await (
      await post([
        { jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} },
        { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { arguments: {} } },
      ])
    ).json()) as Array<{ id: number; error: { code: number } }>;
    expect(batch.map((m) => [m.id, m.error.code])).toEqual([
      [1, -32600],
      [2, -32602],
    ]);
  });

  it('a message nested 50,000 levels deep is a 400 in the envelope, not a stack overflow', async () => {
    const deep = '['.repeat(50_000) + ']'.repeat(50_000);
    const res = await fetch(`${r.url}/mcp`, {
      method: 'POST',
      headers: { 'X-API-Key': KEYS.premium, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"tools_ccgen","arguments":{"bin":${deep}}}}`,
    });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({
      success: false,
      code: 'bad_input',
      error: 'Malformed JSON body: nested deeper than 64 levels',
    });
  });

  it('GET and DELETE on /mcp are 405 in the JSON envelope (stateless: no stream, no session)', async () => {
    for (const method of ['GET', 'DELETE']) {
      const res = await fetch(`${r.url}/mcp`, { method, headers: { 'X-API-Key': KEYS.premium, accept: 'text/event-stream' } });
      expect(res.status).toBe(405);
      expect(res.headers.get('allow')).toBe('POST');
      expect(await res.json()).toMatchObject({ success: false, error: expect.stringMatching(/use POST/) });
    }
  });

  it('/docs tells agents where the MCP server is and how to configure a client', async () => {
    const page = await (await fetch(`${r.url}/docs`, { headers: { accept: 'text/html' } })).text();
    expect(page).toContain('<code>http://127.0.0.1:3999/mcp</code>');
    expect(page).toContain('&quot;mcpServers&quot;');
    expect(page).toContain('&quot;X-API-Key&quot;: &quot;YOUR_KEY&quot;');
  });

  it('REST over a real socket still works after calls were injected (express prototypes untouched)', async () => {
    const res = await fetch(`${r.url}/api/v1/tts/accentlist?lang=en`, { headers: { 'X-API-Key': KEYS.premium } });
    expect(res.status).toBe(200);
    const post = await fetch(`${r.url}/api/v1/cloud-storage/paste-host`, {
      method: 'POST',
      headers: { 'X-API-Key': KEYS.premium, 'content-type': 'application/json' },
      body: JSON.stringify({ text: 'hello' }),
    });
    expect(post.status).toBeLessThan(500);
  });
});

describe('metering: a tool call is one request of the plan, on the REST counter', () => {
  let r: Running;
  afterEach(async () => {
    await r.close();
  });

  it('REST and MCP spend one allowance, and the 429 says when it resets', async () => {
    r = await running({ PLAN_PREMIUM_LIMIT: '3' });
    const client = await mcpClient(r.url, { 'X-API-Key': KEYS.premium });
    const rest = () => fetch(`${r.url}/api/v1/tools/ccgen?bin=457173`, { headers: { 'X-API-Key': KEYS.premium } });
    expect((await rest()).headers.get('x-ratelimit-remaining')).toBe('2');
    expect((await call(client, 'tools_ccgen', { bin: '457173' }))._meta).toMatchObject({ rateLimit: { limit: 3, remaining: 1 } });
    expect((await rest()).headers.get('x-ratelimit-remaining')).toBe('0');
    const refused = await call(client, 'tools_ccgen', { bin: '457173' });
    expect(refused.isError).toBe(true);
    expect(textOf(refused)).toMatch(
      /^Rate limit exceeded\. Try again later\. The allowance resets at \d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z \(in \d+ s\)\.$/,
    );
    expect(refused._meta).toMatchObject({ status: 429, code: 'quota', rateLimit: { limit: 3, remaining: 0 } });
    expect((await rest()).status).toBe(429);
    await client.close();
  });

  it("the free key is counted per client IP, the MCP connection's (X-Forwarded-For behind a trusted proxy)", async () => {
    r = await running({ PLAN_FREE_LIMIT: '1', TRUST_PROXY: 'true' });
    const a = await mcpClient(r.url, { 'X-API-Key': KEYS.free, 'X-Forwarded-For': '203.0.113.7' });
    const b = await mcpClient(r.url, { 'X-API-Key': KEYS.free, 'X-Forwarded-For': '203.0.113.8' });
    expect((await call(a, 'tools_ccgen', { bin: '457173' })).isError).toBeFalsy();
    expect((await call(b, 'tools_ccgen', { bin: '457173' })).isError).toBeFalsy();
    const rest = await fetch(`${r.url}/api/v1/tools/ccgen?bin=457173`, {
      headers: { 'X-API-Key': KEYS.free, 'X-Forwarded-For': '203.0.113.7' },
    });
    expect(rest.status).toBe(429);
    expect(textOf(await call(b, 'tools_ccgen', { bin: '457173' }))).toMatch(/^Rate limit exceeded/);
    await a.close();
    await b.close();
  });
});

describe('discovery settings', () => {
  let r: Running;
  afterEach(async () => {
    await r.close();
  });

  it('MCP_HIDE_UNCONFIGURED=true leaves out the tools that can only fail; a configured upstream brings its tool back', async () => {
    r = await running({ MCP_HIDE_UNCONFIGURED: 'true', UPSTREAM_OPENAI_COMPAT_URL: 'http://127.0.0.1:9/v1' });
    const client = await mcpClient(r.url, { 'X-API-Key': KEYS.premium });
    const names = (await listPages(client)).flat().map((t) => t.name);
    expect(names).toContain('ai_chat-1');
    expect(names).toContain('downloaders_dl-d');
    // LibreTranslate is not configured, but tr's fallback provider (gtx) is.
    expect(names).toContain('utilities_tr');
    for (const hidden of ['ai_chat-2', 'downloaders_dl-a', 'downloaders_dl-b', 'downloaders_dl-c']) expect(names).not.toContain(hidden);
    expect(names.length).toBe(79 - 4);
    await client.close();
  });

  it('MCP_PAGE_SIZE sets the page size; a cursor the server never gave is refused', async () => {
    r = await running({ MCP_PAGE_SIZE: '5' });
    const client = await mcpClient(r.url, { 'X-API-Key': KEYS.premium });
    const pages = await listPages(client);
    expect(pages.flat()).toHaveLength(79);
    // Pages of whole categories: a page is over 5 only when one category is.
    for (const page of pages) {
      if (page.length > 5) expect(new Set(page.map((t) => (t._meta as { category: string }).category)).size).toBe(1);
    }
    await expect(client.listTools({ cursor: 'bm90LWEtY3Vyc29y' })).rejects.toThrow(/Invalid cursor/);
    await client.close();
  });
});
