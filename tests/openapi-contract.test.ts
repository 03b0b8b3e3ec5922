// The OpenAPI document as the whole contract: a client that knows only GET /openapi.json sends every
// operation's documented example request (key in the X-API-Key header, body as documented) and gets a 2xx
// whose body matches the documented schema, with every upstream faked on loopback (helpers/fake-world).
// Fuzzed variants of each request (no key, a required parameter left out, a bound broken, a value outside
// its enum) get a documented 4xx whose body matches the error schema.
import { testApp, listen, type TestApp } from './helpers/app.js';
import { fakeWorld, type FakeWorld } from './helpers/fake-world/index.js';
import { bodySchemaOf, exampleOf, operationsOf, responseChecker, send, type ClientRequest, type Doc, type Operation } from './helpers/openapi-client.js';

let world: FakeWorld;
let t: TestApp;
let server: Awaited<ReturnType<typeof listen>>;
let doc: Doc;
let ops: Operation[];
let check: ReturnType<typeof responseChecker>;

beforeAll(async () => {
  world = await fakeWorld();
  t = await testApp({ ...world.env, AUTH_FAIL_LIMIT: '100000' });
  server = await listen(t.app);
  doc = (await (await fetch(`${server.url}/openapi.json`)).json()) as Doc;
  ops = operationsOf(doc);
  check = responseChecker(doc);
});

afterAll(async () => {
  await server?.close();
  await t?.close();
  await world?.close();
});

const fileFieldsOf = (op: Operation, mediaType: string | undefined): string[] => {
  if (mediaType !== 'multipart/form-data') return [];
  const props = (bodySchemaOf(doc, op, mediaType).properties ?? {}) as Record<string, { format?: string }>;
  return Object.keys(props).filter((k) => props[k].format === 'binary');
};

async function expectDocumented(op: Operation, r: ClientRequest, key: string | undefined, want: (status: number) => boolean, what: string) {
  const res = await send(server.url, op, r, key, fileFieldsOf(op, r.mediaType));
  const problem = !want(res.status) ? `answered ${res.status}` : check(op, res.status, res.body);
  if (problem) throw new Error(`${op.method.toUpperCase()} ${op.path} (${what}) ${JSON.stringify(r)}: ${problem}: ${JSON.stringify(res.body).slice(0, 400)}${world.unmatched.length ? `\nunmatched upstream calls: ${world.unmatched.join(', ')}` : ''}`);
}

test('the document lists the 79 catalog operations and the account usage', () => {
  expect(ops.filter((o) => o.path !== '/api/v1/account/usage')).toHaveLength(79);
});

test('every documented example request gets a 2xx that matches the documented schema', async () => {
  const failures: string[] = [];
  for (const op of ops) {
    world.unmatched.length = 0;
    await expectDocumented(op, exampleOf(op), t.key, (s) => s >= 200 && s < 300, 'example').catch((e: Error) => failures.push(e.message));
  }
  expect(failures).toEqual([]);
}, 60_000);
