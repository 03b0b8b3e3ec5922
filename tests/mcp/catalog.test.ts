// Adding an endpoint to the catalog adds its tool, with no other change: a catalog directory with one
// more category (CATALOG_DIR) and its adapter (adaptersDir) boot an app whose /mcp lists and calls it.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { KEYS, listen, testApp } from '../helpers/app.js';
import { listPages, mcpClient } from '../helpers/mcp.js';
import { ROOT } from '../helpers/paths.js';

const CATALOG = path.join(ROOT, 'catalog');

const PLANTED = `category: planted
endpoints:
  - name: echo-words
    method: GET
    summary: Echoes a word a given number of times
    adapter: planted/echo-words
    upstream: embedded
    params:
      word: { type: string, required: true, description: The word to echo, pattern: '^[a-z]{1,20}$', patternHint: 1 to 20 lowercase letters }
      times: { type: integer, minimum: 1, maximum: 5, default: 2, description: How many times }
    response:
      type: object
      required: [words]
      properties:
        words: { type: array, items: { type: string } }
`;

const ADAPTER = 'export default async function echoWords(params) { return { words: Array(params.times).fill(params.word) }; }\n';

it('a planted catalog entry is listed and called as a tool, validated like REST', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'uua-planted-'));
  const catalogDir = path.join(dir, 'catalog');
  const adaptersDir = path.join(dir, 'adapters');
  fs.mkdirSync(catalogDir);
  for (const f of fs.readdirSync(CATALOG).filter((f) => f.endsWith('.yaml')))
    fs.copyFileSync(path.join(CATALOG, f), path.join(catalogDir, f));
  fs.writeFileSync(path.join(catalogDir, 'planted.yaml'), PLANTED);
  fs.mkdirSync(path.join(adaptersDir, 'planted'), { recursive: true });
  fs.writeFileSync(path.join(adaptersDir, 'package.json'), '{ "type": "module" }\n');
  fs.writeFileSync(path.join(adaptersDir, 'planted', 'echo-words.js'), ADAPTER);

  const t = await testApp({ CATALOG_DIR: catalogDir }, { adaptersDir });
  const server = await listen(t.app);
  const client = await mcpClient(server.url, { 'X-API-Key': KEYS.premium });
  try {
    const tools = (await listPages(client)).flat();
    expect(tools).toHaveLength(80);
    const tool = tools.find((x) => x.name === 'planted_echo-words')!;
    expect(tool).toMatchObject({
      description: expect.stringContaining('Echoes a word a given number of times'),
      inputSchema: {
        type: 'object',
        required: ['word'],
        properties: { word: { type: 'string', pattern: '^[a-z]{1,20}$' }, times: { type: 'integer', minimum: 1, maximum: 5, default: 2 } },
      },
      outputSchema: { required: ['words'] },
      _meta: { category: 'planted', endpoint: '/api/v1/planted/echo-words', configured: true },
    });
    const ok = await client.callTool({ name: 'planted_echo-words', arguments: { word: 'hi', times: 3 } });
    expect(ok.structuredContent).toEqual({ words: ['hi', 'hi', 'hi'] });
    const bad = await client.callTool({ name: 'planted_echo-words', arguments: { word: 'hi', times: 9 } });
    expect(bad).toMatchObject({ isError: true, content: [{ type: 'text', text: 'Invalid value for times: must be between 1 and 5' }] });
  } finally {
    await client.close();
    await server.close();
    await t.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
