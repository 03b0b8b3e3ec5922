// The OpenAPI document as the whole contract: a client that knows only GET /openapi.json sends every
// operation's documented example request (key in the X-API-Key header, body as documented) and gets a 2xx
// whose body matches the documented schema, with every upstream faked on loopback (helpers/fake-world).
// Fuzzed variants of each request (no key, a required parameter left out, a bound broken, a value outside
// its enum) get a documented 4xx whose body matches the error schema. Every answer carries the headers its
// status documents (the allowance headers, X-Request-Id, Retry-After where required).
import { testApp, listen } from '../../helpers/app.js';
import { fakeWorld } from '../../helpers/fake-world/index.js';
import {
  bodySchemaOf,
  exampleOf,
  makeExampleCall,
  missingHeaders,
  operationsOf,
  responseChecker,
  send,
  type ClientRequest,
  type Doc,
  type Operation,
} from '../../helpers/openapi-client.js';

// Top-level await: the operations to test come from the running service's document.
const world = await fakeWorld();
const t = await testApp({ ...world.env, AUTH_FAIL_LIMIT: '100000' });
const server = await listen(t.app);
const doc = (await (await fetch(`${server.url}/openapi.json`)).json()) as Doc;
const ops = operationsOf(doc);
const check = responseChecker(doc);
await makeExampleCall(doc, server.url, t.key, () => t.api.requestLog!.flush());

afterAll(async () => {
  await server.close();
  await t.close();
  await world.close();
});

type Schema = { type?: string | string[]; enum?: unknown[]; minimum?: number; maximum?: number; maxLength?: number; format?: string };

/** Each parameter's schema, from the query parameters or the documented body. */
function paramsOf(op: Operation, r: ClientRequest): Array<{ name: string; required: boolean; schema: Schema }> {
  // A path parameter cannot be left out of its URL: the variants break the query's.
  if (!r.mediaType)
    return (op.parameters ?? [])
      .filter((p) => p.in !== 'path')
      .map((p) => ({ name: p.name, required: Boolean(p.required), schema: p.schema }));
  const s = bodySchemaOf(doc, op, r.mediaType);
  return Object.entries((s.properties ?? {}) as Record<string, Schema>).map(([name, schema]) => ({
    name,
    required: (s.required ?? []).includes(name),
    schema,
  }));
}

const fileFieldsOf = (op: Operation, r: ClientRequest) =>
  r.mediaType === 'multipart/form-data'
    ? paramsOf(op, r)
        .filter((p) => p.schema.format === 'binary')
        .map((p) => p.name)
    : [];

/** The request with one parameter set (or, with undefined, left out), wherever the operation takes it. */
function withParam(r: ClientRequest, name: string, value: unknown): ClientRequest {
  const place = r.mediaType ? { ...r.body } : { ...r.query };
  if (value === undefined) delete place[name];
  else place[name] = value;
  return r.mediaType ? { ...r, body: place } : { ...r, query: place };
}

/** Variants that break one documented rule each: [what, request, key]. */
function variantsOf(op: Operation): Array<[string, ClientRequest, string | undefined]> {
  const example = exampleOf(op);
  const out: Array<[string, ClientRequest, string | undefined]> = [['no key', example, undefined]];
  const params = paramsOf(op, example);
  const required = params.find((p) => p.required);
  if (required) out.push([`required ${required.name} left out`, withParam(example, required.name, undefined), t.key]);
  const bounded = params.find(
    (p) => p.schema.maximum !== undefined || p.schema.minimum !== undefined || (p.schema.maxLength ?? Infinity) <= 4096,
  );
  if (bounded) {
    const s = bounded.schema;
    const value = s.maximum !== undefined ? s.maximum + 1 : s.minimum !== undefined ? s.minimum - 1 : 'x'.repeat(s.maxLength! + 1);
    out.push([`${bounded.name} out of bounds`, withParam(example, bounded.name, value), t.key]);
  }
  const enumerated = params.find((p) => p.schema.enum);
  if (enumerated)
    out.push([
      `${enumerated.name} outside its enum`,
      withParam(example, enumerated.name, enumerated.schema.type === 'integer' ? 987654 : 'no-such-choice'),
      t.key,
    ]);
  return out;
}

async function expectDocumented(op: Operation, r: ClientRequest, key: string | undefined, want: (status: number) => boolean) {
  world.unmatched.length = 0;
  const res = await send(server.url, op, r, key, fileFieldsOf(op, r));
  const lacking = missingHeaders(doc, op, res.status, res.headers);
  const problem = !want(res.status)
    ? `answered ${res.status}`
    : (check(op, res.status, res.body) ?? (lacking.length ? `no ${lacking.join(', ')} header` : undefined));
  if (problem)
    throw new Error(
      `${JSON.stringify(r)}: ${problem}: ${JSON.stringify(res.body).slice(0, 400)}${world.unmatched.length ? `\nunexpected upstream calls: ${world.unmatched.join(', ')}` : ''}`,
    );
}

const named = ops.map((op) => [`${op.method.toUpperCase()} ${op.path}`, op] as const);

test("the document lists the 79 catalog operations and the account's own three", () => {
  expect(ops.filter((o) => !o.path.startsWith('/api/v1/account/'))).toHaveLength(79);
  expect(ops.filter((o) => o.path.startsWith('/api/v1/account/')).map((o) => o.path)).toEqual([
    '/api/v1/account/usage',
    '/api/v1/account/requests',
    '/api/v1/account/requests/{requestId}',
  ]);
});

// Operations whose adapters still hold a rule the catalog does not: their example request is refused. test.failing keeps them honest: the day one passes,
// its test fails, and it must leave this list.

describe('the documented example request gets a 2xx matching the documented schema', () => {
  const example = async (_name: string, op: Operation) => expectDocumented(op, exampleOf(op), t.key, (s) => s >= 200 && s < 300);
  test.each(named)('%s', example);
});

describe('fuzzed variants get a documented 4xx matching the error schema', () => {
  test.each(named)('%s', async (_name, op) => {
    const variants = variantsOf(op);
    for (const [what, r, key] of variants) {
      await expectDocumented(op, r, key, (s) => s >= 400 && s < 500).catch((e: Error) => {
        throw new Error(`${what}: ${e.message}`);
      });
    }
  });
});

test('every operation has at least one variant besides the missing key, but those without parameters', () => {
  const bare = ops.filter((op) => variantsOf(op).length === 1).map((op) => op.path);
  const withoutParams = ops.filter((op) => paramsOf(op, exampleOf(op)).length === 0).map((op) => op.path);
  expect(bare).toEqual(withoutParams);
});
