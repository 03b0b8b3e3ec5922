// The MCP tool list and /openapi.json describe the same endpoints: per endpoint, the same parameters and
// the same required ones. Read from both documents as served, so either generator drifting fails here.
import request from 'supertest';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { KEYS, listen, testApp, type TestApp } from '../helpers/app.js';
import { listPages, mcpClient } from '../helpers/mcp.js';

type Schema = { $ref?: string; properties?: Record<string, unknown>; required?: string[] };
type Operation = {
  parameters?: Array<{ name: string; in: string; required?: boolean }>;
  requestBody?: { content: Record<string, { schema: Schema }> };
};
type Document = { paths: Record<string, Record<string, Operation>>; components?: { schemas?: Record<string, Schema> } };

/** An operation's parameters (the key aside) and which are required: the query's, plus a body's. */
function parametersOf(doc: Document, op: Operation): { names: string[]; required: string[] } {
  const names = new Set<string>();
  const required = new Set<string>();
  for (const p of op.parameters ?? []) {
    if (p.in !== 'query' || p.name === 'apikey') continue;
    names.add(p.name);
    if (p.required) required.add(p.name);
  }
  for (const media of Object.values(op.requestBody?.content ?? {})) {
    let schema = media.schema;
    if (schema.$ref) schema = doc.components!.schemas![schema.$ref.split('/').pop()!];
    for (const name of Object.keys(schema.properties ?? {})) if (name !== 'apikey') names.add(name);
    for (const name of schema.required ?? []) if (name !== 'apikey') required.add(name);
  }
  return { names: [...names].sort(), required: [...required].sort() };
}

describe('MCP tools and OpenAPI agree', () => {
  let t: TestApp;
  let server: Awaited<ReturnType<typeof listen>>;
  let client: Client;
  beforeAll(async () => {
    t = await testApp();
    server = await listen(t.app);
    client = await mcpClient(server.url, { 'X-API-Key': KEYS.premium });
  });
  afterAll(async () => {
    await client.close();
    await server.close();
    await t.close();
  });

  it('on every endpoint: same parameters, same required lists', async () => {
    const doc = (await request(t.app).get('/openapi.json')).body as Document;
    const tools = (await listPages(client)).flat();
    // The account's own operations (usage, the request log) are the caller's, not tools.
    const operations = Object.entries(doc.paths).filter(([path]) => !path.startsWith('/api/v1/account/'));
    expect(tools).toHaveLength(operations.length);
    for (const [path, methods] of operations) {
      const [method, op] = Object.entries(methods)[0];
      const tool = tools.find((x) => (x._meta as { endpoint: string }).endpoint === path);
      expect({ path, tool: tool?.name, method: (tool?._meta as { method?: string })?.method }).toEqual({
        path,
        tool: expect.any(String),
        method: method.toUpperCase(),
      });
      const fromOpenApi = parametersOf(doc, op);
      const fromMcp = {
        names: Object.keys(tool!.inputSchema.properties ?? {}).sort(),
        required: [...(tool!.inputSchema.required ?? [])].sort(),
      };
      expect({ path, ...fromMcp }).toEqual({ path, ...fromOpenApi });
    }
  });
});
