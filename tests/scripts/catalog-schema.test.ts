// scripts/catalog-schema: the committed editor schemas are what the script makes from the loader's schemas
// today, and every catalog file names its own on its first line.
import fs from 'node:fs';
import path from 'node:path';
import { Ajv } from 'ajv';
import YAML from 'yaml';
import { editorSchemas, modeline } from '../../scripts/catalog-schema.js';
import { ROOT } from '../helpers/paths.js';

const catalogDir = path.join(ROOT, 'catalog');
const yamlFiles = fs.readdirSync(catalogDir).filter((f) => f.endsWith('.yaml'));

test('catalog/schema/*.schema.json are what npm run catalog-schema writes now', async () => {
  const made = await editorSchemas(ROOT);
  expect([...made.keys()].sort()).toEqual(fs.readdirSync(path.join(catalogDir, 'schema')).sort());
  for (const [name, text] of made) {
    // On a difference: run `npm run catalog-schema` and commit what it writes.
    expect(`${name}:\n${fs.readFileSync(path.join(catalogDir, 'schema', name), 'utf8')}`).toBe(`${name}:\n${text}`);
  }
});

test.each(yamlFiles)('%s names its schema on its first line, and that schema accepts it', (file) => {
  const text = fs.readFileSync(path.join(catalogDir, file), 'utf8');
  expect(text.split('\n')[0]).toBe(modeline(file));
  const schemaFile = /\$schema=\.\/(.+)$/.exec(modeline(file))![1];
  const schema = JSON.parse(fs.readFileSync(path.join(catalogDir, schemaFile), 'utf8')) as object;
  const check = new Ajv({ strict: false }).compile(schema);
  expect(check(YAML.parse(text))).toBe(true);
});
