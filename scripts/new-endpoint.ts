// Starts a new endpoint: its catalog entry (marked `extension: true`, as anything new is outside the
// customer's spec), its adapter and its test, each with the placeholders a maintainer fills in, and the
// category's adapters/<category>/_catalog.ts written again so the adapter's params are typed at once.
// Refuses a name that is taken. Prints what it wrote and the one line of the adapter left to write.
//
//   npm run new-endpoint -- <category>/<name>
//   npm run new-endpoint -- <category>/<name> --root <dir>     (another copy of the project; tests use it)
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import YAML from 'yaml';
import { modeline } from './catalog-schema.js';
import { catalogTypes, typesFile } from './catalog-types.js';

export interface NewEndpoint {
  /** The files written, relative to the root. */
  wrote: string[];
  /** Where the maintainer writes the answer, and what to write there. */
  todo: string;
}

/** The adapter's placeholder: the line the maintainer replaces with the answer. */
export const ANSWER_LINE = '  throw new Error(`not written yet: the answer to ${text}`);';

const camel = (name: string) => name.replace(/-([a-z0-9])/g, (_, c: string) => c.toUpperCase()).replace(/^(\d)/, '_$1');

const catalogEntry = (category: string, name: string) => `  - name: ${name}
    method: GET
    title: 'FILL IN: what a person calls it (the reference shows it beside ${name})'
    summary: 'FILL IN: what ${name} answers, in a few words'
    # Not in the customer's spec: scripts/check-catalog.ts names it instead of failing.
    extension: true
    adapter: ${category}/${name}
    upstream: embedded
    params:
      text:
        type: string
        required: true
        description: 'FILL IN: what the caller gives'
        examples: [hello]
    response:
      type: object
      required: [result]
      properties:
        result: { type: string, description: 'FILL IN: what the answer holds' }
      examples:
        - result: hello
`;

const adapterFile = (category: string, name: string) => `// ${category}/${name}: FILL IN what it answers, and from what.
import type { Adapter } from './_catalog.js';

const ${camel(name)}: Adapter<'${category}/${name}'> = async (params) => {
  const { text } = params;
${ANSWER_LINE}
};

export default ${camel(name)};
`;

const testFile = (
  category: string,
  name: string,
) => `// ${category}/${name}: FILL IN what these tests show. Embedded: no upstream to fake, only the app.
import { upstreamSuite } from '../../helpers/upstream-suite.js';
import { expectAnswer } from '../../helpers/schema.js';

const s = upstreamSuite({ endpoint: '${category}/${name}', upstreams: {} });

test('answers the example of its catalog entry', async () => {
  const res = await s.get({ text: 'hello' });
  expectAnswer(res, 'embedded', '${category}/${name}');
  expect(res.body.data).toEqual({ result: 'hello' });
});

test('text is required', async () => {
  const res = await s.get({});
  expect(res.status).toBe(400);
  expect(res.body.error).toBe('Missing required parameter: text');
});
`;

export async function newEndpoint(root: string, id: string): Promise<NewEndpoint> {
  const m = /^([a-z0-9-]+)\/([a-z0-9][a-z0-9-]*)$/.exec(id);
  if (!m) throw new Error(`"${id}" is not <category>/<name> in lowercase letters, digits and dashes`);
  const [, category, name] = m;
  const catalogFile = path.join('catalog', `${category}.yaml`);
  const adapter = path.join('adapters', category, `${name}.ts`);
  const test = path.join('tests', 'adapters', category, `${name}.test.ts`);
  const at = (f: string) => path.join(root, f);

  const existing = fs.existsSync(at(catalogFile)) ? fs.readFileSync(at(catalogFile), 'utf8') : undefined;
  const doc = existing === undefined ? undefined : (YAML.parse(existing) as { endpoints?: Array<{ name?: string }> });
  if (doc?.endpoints?.some((e) => e.name === name)) throw new Error(`${id} exists already (${catalogFile})`);
  for (const f of [adapter, test]) if (fs.existsSync(at(f))) throw new Error(`${id}: ${f} exists already`);

  // The category files end with their endpoints list, so the entry goes at the end.
  const start = existing ?? `${modeline(catalogFile)}\ncategory: ${category}\nendpoints:\n`;
  const text = `${start}${start.endsWith('\n') ? '' : '\n'}${catalogEntry(category, name)}`;
  const added = (YAML.parse(text) as { endpoints?: Array<{ name?: string }> }).endpoints?.at(-1);
  if (added?.name !== name) throw new Error(`${catalogFile} does not end with its endpoints list: add the entry by hand`);

  fs.writeFileSync(at(catalogFile), text);
  for (const [file, body] of [
    [adapter, adapterFile(category, name)],
    [test, testFile(category, name)],
  ]) {
    fs.mkdirSync(path.dirname(at(file)), { recursive: true });
    fs.writeFileSync(at(file), body);
  }
  // The category's types, from the catalog as it is now: the adapter written above names its own.
  const types = typesFile(category);
  fs.writeFileSync(at(types), (await catalogTypes(root)).get(types)!);
  return {
    wrote: [catalogFile, types, adapter, test],
    todo: `${adapter}:${adapterFile(category, name).split('\n').indexOf(ANSWER_LINE) + 1}: replace the throw with the answer, e.g. return { result: text };`,
  };
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const rootAt = args.indexOf('--root');
  const root = rootAt >= 0 ? path.resolve(args.splice(rootAt, 2)[1]) : process.cwd();
  if (args.length !== 1) {
    console.error('usage: npm run new-endpoint -- <category>/<name>');
    process.exitCode = 1;
    return;
  }
  try {
    const { wrote, todo } = await newEndpoint(root, args[0]);
    for (const f of wrote) console.log(`wrote ${f}`);
    console.log('Fill in the FILL IN placeholders (title, summary, the param, the response and its example), then the one line:');
    console.log(`  ${todo}`);
  } catch (err) {
    console.error((err as Error).message);
    process.exitCode = 1;
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) await main();
