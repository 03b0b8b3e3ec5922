// A client we did not write: the MCP Inspector's CLI (`@modelcontextprotocol/inspector-cli`, the CLI of the
// Inspector's v1 line) lists the tools of a running server over HTTP with a key header. Inspector v2 needs
// Node >= 22 to install, which npm on the machine's Node 20 warns about (docs/decisions/quiet-install.md);
// its one error-severity schema check, a bare `true`/`false` where a schema object is expected, is asserted
// here on the tools the CLI listed.
import { execFile } from 'node:child_process';
import { createRequire } from 'node:module';
import path from 'node:path';
import { promisify } from 'node:util';
import { KEYS, listen, testApp } from '../helpers/app.js';

const run = promisify(execFile);
const INSPECTOR = path.join(
  path.dirname(createRequire(import.meta.url).resolve('@modelcontextprotocol/inspector-cli/package.json')),
  'build/index.js',
);

/** Keywords whose value may be a bare boolean (Inspector v2's list); everywhere else a schema is an object. */
const BOOLEAN_VALUED = new Set(['additionalProperties', 'unevaluatedProperties', 'additionalItems', 'unevaluatedItems']);
const MAPS = ['properties', 'patternProperties', 'dependentSchemas', '$defs', 'definitions'];
const LISTS = ['allOf', 'anyOf', 'oneOf', 'prefixItems'];
const SINGLE = ['items', 'contains', 'not', 'propertyNames', 'if', 'then', 'else', 'contentSchema', ...BOOLEAN_VALUED];

/** The paths of bare boolean schemas in `schema`. */
function bareBooleans(schema: unknown, at: string, keyword?: string): string[] {
  if (typeof schema === 'boolean') return keyword && BOOLEAN_VALUED.has(keyword) ? [] : [at];
  if (typeof schema !== 'object' || schema === null) return [];
  const node = schema as Record<string, unknown>;
  const found: string[] = [];
  for (const key of MAPS)
    for (const [name, sub] of Object.entries((node[key] as Record<string, unknown> | undefined) ?? {}))
      found.push(...bareBooleans(sub, `${at}/${key}/${name}`, key));
  for (const key of LISTS)
    (node[key] as unknown[] | undefined)?.forEach((sub, i) => found.push(...bareBooleans(sub, `${at}/${key}/${i}`, key)));
  for (const key of SINGLE) if (key in node) found.push(...bareBooleans(node[key], `${at}/${key}`, key));
  return found;
}

it('bareBooleans finds a bare schema and leaves a boolean-valued keyword alone', () => {
  const schema = { type: 'object', properties: { a: true, b: { type: 'string' } }, additionalProperties: false, anyOf: [false] };
  expect(bareBooleans(schema, '')).toEqual(['/properties/a', '/anyOf/0']);
});

it('the MCP Inspector CLI lists all 79 tools, none with a bare boolean schema', async () => {
  const t = await testApp();
  const server = await listen(t.app);
  try {
    const args = [`${server.url}/mcp`, '--transport', 'http', '--header', `X-API-Key: ${KEYS.premium}`, '--method', 'tools/list'];
    // The Inspector runs on the Node that runs the tests (24 here, from the `node` devDependency). It looks for
    // its package.json as `../package.json` from the working directory but imports it from its module, so it
    // runs in its own build directory.
    const { stdout } = await run(process.execPath, [INSPECTOR, ...args], {
      cwd: path.dirname(INSPECTOR),
      timeout: 60_000,
      env: { ...process.env, NO_COLOR: '1' },
    });
    const listed = JSON.parse(stdout) as {
      tools: Array<{ name: string; inputSchema?: unknown; outputSchema?: unknown }>;
      nextCursor?: string;
    };
    expect(listed.tools).toHaveLength(79);
    expect(listed.nextCursor).toBeUndefined();
    expect(listed.tools.map((x) => x.name)).toContain('tools_ccgen');
    const bare = listed.tools.flatMap((x) => [
      ...bareBooleans(x.inputSchema, `${x.name}.inputSchema`),
      ...bareBooleans(x.outputSchema, `${x.name}.outputSchema`),
    ]);
    expect(bare).toEqual([]);
  } finally {
    await server.close();
    await t.close();
  }
}, 90_000);
