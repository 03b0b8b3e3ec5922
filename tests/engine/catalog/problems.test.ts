// Every problem of every catalog file is told at once, each at its file:line:column, in plain words.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { CatalogError, loadCatalog, readCatalog } from '../../../engine/catalog/load.js';
import { nearest } from '../../../engine/catalog/did-you-mean.js';
import { ROOT } from '../../helpers/paths.js';

const tmpDirs: string[] = [];
afterAll(() => {
  for (const d of tmpDirs) fs.rmSync(d, { recursive: true, force: true });
});

/** A catalog of the real plans and upstreams and the given category files. */
function catalogWith(files: Record<string, string>): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'uua-problems-'));
  tmpDirs.push(dir);
  for (const f of ['plans.yaml', 'upstreams.yaml']) fs.copyFileSync(path.join(ROOT, 'catalog', f), path.join(dir, f));
  for (const [name, text] of Object.entries(files)) fs.writeFileSync(path.join(dir, name), text);
  return dir;
}

const problemsOf = (dir: string) => {
  try {
    loadCatalog(dir);
  } catch (e) {
    expect(e).toBeInstanceOf(CatalogError);
    return { message: (e as Error).message, problems: (e as CatalogError).problems };
  }
  throw new Error('the catalog loaded');
};

const THREE_MISTAKES = `category: tools
endpoints:
  - name: shout
    method: GET
    summary: The text in capitals
    adapter: tools/shout
    upstream: nowhere
    params:
      text:
        type: strng
        required: true
    response: { type: object }
`;

test('a file with three mistakes: all three at once, each at its line and column', () => {
  const dir = catalogWith({ 'tools.yaml': THREE_MISTAKES });
  const file = path.join(dir, 'tools.yaml');
  const { message, problems } = problemsOf(dir);
  expect(problems).toEqual([
    `${file}:7:15 endpoint shout, field upstream: unknown upstream "nowhere": not in upstreams.yaml`,
    `${file}:10:9 endpoint shout, field params.text: missing "description"`,
    `${file}:10:15 endpoint shout, field params.text.type: "strng" is not one of string, integer, number, boolean, file (did you mean "string"?)`,
  ]);
  expect(message).toBe(['3 problems in the catalog:', ...problems].join('\n'));
  expect(message).not.toMatch(/\n\s+at /);
});

test('problems of several files come together, and a good endpoint beside a bad one is still read', () => {
  const good = THREE_MISTAKES.replace('upstream: nowhere', 'upstream: embedded').replace(
    'type: strng',
    'type: string\n        description: The text',
  );
  const dir = catalogWith({
    'tools.yaml': good.replace('  - name: shout', '  - name: shout\n    colour: red'),
    'video.yaml': good.replace('category: tools', 'category: video') + '  - name: quiet\n    method: FETCH\n',
  });
  const { catalog, problems, refused } = readCatalog(dir);
  expect(problems).toEqual([
    expect.stringMatching(
      /tools\.yaml:4:5 endpoint shout, field : unknown field "colour"$|tools\.yaml:4:5 endpoint shout: unknown field "colour"$/,
    ),
    expect.stringMatching(/video\.yaml:14:5 endpoint quiet: missing "summary"$/),
    expect.stringMatching(/video\.yaml:14:5 endpoint quiet: missing "adapter"$/),
    expect.stringMatching(/video\.yaml:14:5 endpoint quiet: missing "upstream"$/),
    expect.stringMatching(/video\.yaml:14:5 endpoint quiet: missing "params"$/),
    expect.stringMatching(/video\.yaml:14:5 endpoint quiet: missing "response"$/),
    expect.stringMatching(/video\.yaml:15:13 endpoint quiet, field method: "FETCH" is not one of GET, POST$/),
  ]);
  expect(catalog.endpoints.map((e) => e.id)).toEqual(['video/shout']);
  expect(refused).toEqual(['tools/shout', 'video/quiet']);
});

test('types, bounds, durations and rules are told in words', () => {
  const text = `category: tools
endpoints:
  - name: count
    method: GET
    summary: A count
    adapter: tools/count
    upstream: embedded
    cache: 10 minutes
    params:
      n: { type: integer, description: How many, minimum: one, maxLength: 0 }
      m: { type: integer, description: How many more, requiredWhen: { mode: a } }
    rules:
      - { anyOf: [n, k] }
      - { when: { n: 1 }, unless: { n: 2 }, require: [m] }
      - { when: { n: 1 } }
      - { exclusive: [n, m], colour: red }
    response: { type: object, properties: { total: { type: int } } }
`;
  const dir = catalogWith({ 'tools.yaml': text });
  const lines = problemsOf(dir).problems.map((l) => l.slice(l.indexOf(' ') + 1));
  expect(lines).toEqual([
    'endpoint count, field cache: "10 minutes" is not a duration such as 500ms, 30s, 10m, 6h or 30d',
    'endpoint count, field params.n.minimum: must be a number, not "one"',
    'endpoint count, field params.n.maxLength: must be >= 1, not 0',
    'endpoint count, field params.m.requiredWhen: unknown param "mode"',
    'endpoint count, field rules.0: unknown param "k"',
    'endpoint count, field rules.1: give only one of when, unless, given',
    'endpoint count, field rules.2: missing one of "require", "forbid", "match"',
    'endpoint count, field rules.3: unknown field "colour"',
    'endpoint count, field response.properties.total.type: "int" is not one of object, array, string, integer, number, boolean, null (did you mean "integer"?)',
  ]);
});

test('a YAML syntax error is placed, and the other files are still checked', () => {
  const dir = catalogWith({
    'tools.yaml': 'category: tools\nendpoints: [\n',
    'video.yaml': THREE_MISTAKES.replace('category: tools', 'category: video'),
  });
  const { problems } = problemsOf(dir);
  expect(problems[0]).toMatch(/tools\.yaml:3:1 not valid YAML: /);
  expect(problems).toHaveLength(4);
});

test('"did you mean" names a near word or a word the slip begins, and nothing far', () => {
  expect(nearest('strng', ['string', 'integer'])).toBe('string');
  expect(nearest('String', ['string', 'integer'])).toBe('string');
  expect(nearest('descripton', ['description', 'default'])).toBe('description');
  expect(nearest('int', ['string', 'integer'])).toBe('integer');
  expect(nearest('colour', ['type', 'description', 'required'])).toBeUndefined();
  expect(nearest('string', ['string'])).toBeUndefined();
});
