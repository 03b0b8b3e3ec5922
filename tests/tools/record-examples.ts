// `npx tsx tests/tools/record-examples.ts`: records each catalog endpoint's example answer into its YAML
// (`response.examples`), so the reference shows real answers instead of placeholders. Every upstream is
// faked on loopback (helpers/fake-world, the recorded fixtures), and each operation's documented example
// request is sent, as tests/engine/openapi/contract.test.ts does; the answer's `data` is kept, lists cut to
// three items and long texts to 300 characters (an example, not a fixture).
// Run it again after changing a response or a fixture; the catalog test checks each example against its schema.
import fs from 'node:fs';
import path from 'node:path';
import { stringify } from 'yaml';
import { testApp, listen } from '../helpers/app.js';
import { fakeWorld } from '../helpers/fake-world/index.js';
import { exampleOf, operationsOf, send, type Doc } from '../helpers/openapi-client.js';

interface Schema {
  properties?: Record<string, Schema>;
  required?: string[];
  additionalProperties?: unknown;
  items?: Schema;
}

/**
 * The answer as an example: lists cut to three items, long texts to 300 characters, and only the fields
 * the schema names (a field the adapter answers but the schema does not name is the contract's gap, not
 * the example's: the OpenAPI linters read examples as closed to undeclared fields).
 */
const trim = (v: unknown, schema: Schema = {}): unknown => {
  if (Array.isArray(v)) return v.slice(0, 3).map((x) => trim(x, schema.items));
  if (v && typeof v === 'object') {
    const named = schema.properties && schema.additionalProperties === undefined;
    const entries = Object.entries(v).filter(([k]) => !named || k in schema.properties! || schema.required?.includes(k));
    return Object.fromEntries(entries.map(([k, x]) => [k, trim(x, schema.properties?.[k])]));
  }
  if (typeof v === 'string' && v.length > 300) return `${v.slice(0, 299)}…`;
  return v;
};

const world = await fakeWorld();
const t = await testApp({ ...world.env, AUTH_FAIL_LIMIT: '100000' });
const server = await listen(t.app);
const doc = (await (await fetch(`${server.url}/openapi.json`)).json()) as Doc;
const answers = new Map<string, unknown>();
for (const op of operationsOf(doc)) {
  const id = op.path.replace('/api/v1/', '');
  const r = exampleOf(op);
  const files = r.mediaType === 'multipart/form-data' ? Object.keys(r.body ?? {}).filter((k) => k === 'file' || k === 'image') : [];
  const res = await send(server.url, op, r, t.key, files);
  const schema = t.api.endpoints.find((e) => e.id === id)?.response as Schema | undefined;
  if (res.status === 200) answers.set(id, trim((res.body as { data: unknown }).data, schema));
  else console.warn(`${id}: ${res.status} ${JSON.stringify(res.body).slice(0, 200)}`);
}
await server.close();
await t.close();
await world.close();

// Written as text at the end of each endpoint's block (its `response:` always comes last), so the rest of
// the file stays byte for byte as it was; an earlier recording is replaced.
const dir = t.api.config.catalogDir;
for (const file of fs.readdirSync(dir).filter((f) => f.endsWith('.yaml') && !['plans.yaml', 'upstreams.yaml'].includes(f))) {
  const text = fs.readFileSync(path.join(dir, file), 'utf8');
  const category = /^category: (\S+)/m.exec(text)![1];
  const blocks = text.split(/^(?= {2}- name: )/m);
  const out = blocks.map((block) => {
    const name = /^ {2}- name: (\S+)/.exec(block)?.[1];
    const data = name && answers.get(`${category}/${name}`);
    // A response given by an alias or on one line has no block to add to: left as it is.
    if (!data || !/\n {4}response:\n/.test(block)) return block;
    const body = block.replace(/\s*$/, '').replace(/\n {6}examples:(?:\n {8}.*)*$/, '');
    const example = stringify([data], { lineWidth: 0 }).replace(/^/gm, '        ').trimEnd();
    const gap = /\n\s*$/.test(block) && block !== blocks[blocks.length - 1] ? '\n\n' : '\n';
    return `${body}\n      examples:\n${example}${gap}`;
  });
  fs.writeFileSync(path.join(dir, file), out.join(''));
}
console.log(`recorded ${answers.size} examples`);
