// Stoplight Prism, a validator nobody here wrote, as a proxy in front of the service (tests/helpers/prism.ts):
// every operation's documented example request, and for an operation with raw media its variant asking for
// the bytes, goes through it to a server whose upstreams are faked on loopback (helpers/fake-world), and
// Prism finds 0 violations of the document in the requests or the answers. Twice: on a server holding a
// pooled key for every upstream, and on one holding none where callers may bring their own
// (`upstream_key`), whose document then requires that key and carries it in its examples.
import { testApp, listen, type TestApp } from '../../helpers/app.js';
import { fakeWorld } from '../../helpers/fake-world/index.js';
import { exampleOf, fileFieldsOf, makeExampleCall, operationsOf, send, type Doc, type Operation } from '../../helpers/openapi-client.js';
import { startPrism, violationsOf, type Prism } from '../../helpers/prism.js';
import { fakeUpstream, type FakeResponse } from '../../helpers/fake-upstream.js';

// Top-level await: the operations to test come from the running services' documents.
const world = await fakeWorld();

interface Served {
  t: TestApp;
  server: Awaited<ReturnType<typeof listen>>;
  doc: Doc;
  prism: Prism;
}

async function serve(env: Record<string, string>): Promise<Served> {
  const t = await testApp({ ...env, AUTH_FAIL_LIMIT: '100000' });
  const server = await listen(t.app);
  const doc = (await (await fetch(`${server.url}/openapi.json`)).json()) as Doc;
  const prism = await startPrism(doc, server.url);
  await makeExampleCall(doc, server.url, t.key, () => t.api.requestLog!.flush());
  return { t, server, doc, prism };
}

const pooled = await serve(world.env);
// No pooled key where a caller may bring one: the operations that take upstream_key.
const takesOwnKey = (doc: Doc, op: Operation) => {
  const ref = Object.values(op.requestBody?.content ?? {})[0]?.schema.$ref;
  const body = ref ? (doc.components.schemas[ref.split('/').pop()!] as { properties?: object; required?: string[] }) : undefined;
  return {
    takes: Boolean(body?.properties && 'upstream_key' in body.properties),
    required: Boolean(body?.required?.includes('upstream_key')),
  };
};
const ownKeyOps = operationsOf(pooled.doc).filter((op) => takesOwnKey(pooled.doc, op).takes);
const bare = await serve(Object.fromEntries(Object.entries(world.env).filter(([name]) => !(name === 'UPSTREAM_POLLINATIONS_KEYS'))));

/** A server whose every upstream answers `failure` to everything (its keys pooled as in the world). */
async function failing(failure: FakeResponse) {
  const fake = await fakeUpstream(() => failure);
  const env = Object.fromEntries(
    Object.entries(world.env).map(([name, value]) => [name, name.endsWith('_URL') ? `${fake.url}/${name}` : value]),
  );
  return { served: await serve(env), fake };
}
const broken = await failing({ status: 500, json: { error: 'internal' } });
const throttled = await failing({ status: 429, headers: { 'retry-after': '7' }, json: { error: 'slow down' } });

afterAll(async () => {
  for (const { fake } of [broken, throttled]) await fake.close();
  for (const s of [pooled, bare, broken.served, throttled.served]) {
    await s.prism.close();
    await s.server.close();
    await s.t.close();
  }
  await world.close();
});

/** The media types of the raw answers an operation documents beside its JSON envelope. */
function mediaOf(op: Operation): string[] {
  const ok = op.responses['200'] as { content: Record<string, unknown> };
  return Object.keys(ok.content).filter((type) => type !== 'application/json');
}

let requests = 0;
let violations = 0;

async function throughPrism(
  s: Served,
  op: Operation,
  accept = 'application/json',
  expected = (status: number) => status >= 200 && status < 300,
) {
  const r = exampleOf(op);
  world.unmatched.length = 0;
  const res = await send(s.prism.url, op, r, s.t.key, fileFieldsOf(s.doc, op, r.mediaType), accept);
  const found = violationsOf(res.status, res.headers, res.body);
  requests++;
  violations += found.length;
  if (found.length || !expected(res.status))
    throw new Error(
      `${res.status}, ${found.length} violations: ${JSON.stringify(found).slice(0, 1500)}\n${JSON.stringify(res.body).slice(0, 400)}${world.unmatched.length ? `\nunexpected upstream calls: ${world.unmatched.join(', ')}` : ''}`,
    );
  return res;
}

const named = (ops: Operation[]) => ops.map((op) => [`${op.method.toUpperCase()} ${op.path}`, op] as const);

describe('every documented example through Prism: 0 violations (pooled keys)', () => {
  test.each(named(operationsOf(pooled.doc)))('%s', async (_name, op) => {
    await throughPrism(pooled, op);
  });
});

const mediaOps = operationsOf(pooled.doc).flatMap((op) => mediaOf(op).map((type) => [`${op.path} as ${type}`, op, type] as const));

describe('every raw-media variant through Prism: 0 violations', () => {
  test('the media operations are documented', () => {
    expect(mediaOps.map(([name]) => name)).toEqual(
      expect.arrayContaining(['/api/v1/tts/generate as audio/mpeg', '/api/v1/art-design/noise-image as image/png']),
    );
  });
  test.each(mediaOps)('%s', async (_name, op, type) => {
    const res = await throughPrism(pooled, op, type);
    const family = type.split('/')[0];
    expect(res.headers.get('content-type')).toMatch(new RegExp(`^${family}/`));
  });
});

describe('without a pooled key, upstream_key is required, in the examples, and they pass through Prism', () => {
  test('the operations that take upstream_key: optional with a pooled key, required without', () => {
    expect(ownKeyOps.length).toBeGreaterThanOrEqual(19);
    for (const op of ownKeyOps) {
      expect(takesOwnKey(pooled.doc, op).required).toBe(false);
      expect(
        takesOwnKey(
          bare.doc,
          operationsOf(bare.doc).find((o) => o.path === op.path)!,
        ).required,
      ).toBe(true);
    }
  });
  test.each(named(ownKeyOps.map((op) => operationsOf(bare.doc).find((o) => o.path === op.path)!)))('%s', async (_name, op) => {
    const r = exampleOf(op);
    expect(r.body).toHaveProperty('upstream_key');
    await throughPrism(bare, op);
  });
});

// Upstream-backed operations answer errors here; each must be one the document lists, with its headers
// (Retry-After on a 503), for Prism to find nothing.
const reachingOut = (op: Operation) => Boolean(op.responses['502']);
describe.each([
  ['every upstream failing (500)', broken, 502],
  ['every upstream throttling (429)', throttled, 503],
])('%s: the documented error, 0 violations', (_what, { served }, status) => {
  const ops = operationsOf(served.doc).filter((op) => reachingOut(op) && !op.path.includes('account/'));
  test.each(named(ops))('%s', async (_name, op) => {
    const res = await throughPrism(served, op, 'application/json', (s) => s < 300 || s === status || s === 502 || s === 503 || s === 404);
    if (status === 503 && res.status === 503) expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
  });
  test('most of them answer that status', async () => {
    const statuses = await Promise.all(ops.map(async (op) => (await send(served.server.url, op, exampleOf(op), served.t.key)).status));
    expect(statuses.filter((s) => s === status).length).toBeGreaterThan(ops.length / 2);
  });
});

test('Prism does report an answer the document does not allow (the check can fail)', async () => {
  // The document without noise-image's raw PNG: the same request's answer is then a violation.
  const doc = structuredClone(pooled.doc);
  const op = operationsOf(doc).find((o) => o.path === '/api/v1/art-design/noise-image')!;
  delete (doc.paths[op.path].get.responses['200'] as { content: Record<string, unknown> }).content['image/png'];
  const prism = await startPrism(doc, pooled.server.url);
  try {
    const res = await send(prism.url, op, exampleOf(op), pooled.t.key, [], 'image/png');
    expect(violationsOf(res.status, res.headers, res.body).map((v) => v.message)).toEqual(
      expect.arrayContaining([expect.stringContaining('The received media type "image/png" does not match')]),
    );
  } finally {
    await prism.close();
  }
});

test('Prism counted 0 violations over every request', () => {
  expect(requests).toBeGreaterThan(200);
  expect(violations).toBe(0);
  console.log(`Prism: ${violations} violations over ${requests} requests`);
});
