// Writes the JSON Schemas editors use to check catalog/*.yaml as it is typed (completion, hover, red
// squiggles): catalog/schema/<kind>.schema.json, made from the loader's own schemas (engine/catalog/schema.ts)
// so an editor accepts exactly what the boot accepts. Each YAML file names its schema on its first line,
// `# yaml-language-server: $schema=./schema/<kind>.schema.json`, which the YAML extension of VS Code (and
// any editor speaking to yaml-language-server) reads. tests/scripts/catalog-schema.test.ts fails when a
// committed schema differs from what this writes, so they never drift.
//
//   npm run catalog-schema
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import * as prettier from 'prettier';
import { categorySchema, plansSchema, upstreamsSchema } from '../engine/catalog/schema.js';

const KINDS = {
  category: { schema: categorySchema, title: 'A category of endpoints (catalog/<category>.yaml)' },
  plans: { schema: plansSchema, title: 'The plans (catalog/plans.yaml)' },
  upstreams: { schema: upstreamsSchema, title: 'The upstreams (catalog/upstreams.yaml)' },
};

/** The schema file's name a catalog file should name, by the file's name. */
export function schemaFileFor(yamlFile: string): string {
  const base = path.basename(yamlFile, '.yaml');
  return `${base === 'plans' || base === 'upstreams' ? base : 'category'}.schema.json`;
}

/** The first line of a catalog file: the schema it is checked against in an editor. */
export const modeline = (yamlFile: string) => `# yaml-language-server: $schema=./schema/${schemaFileFor(yamlFile)}`;

/** Each schema file's name and text, formatted as the repository's other JSON. */
export async function editorSchemas(root: string): Promise<Map<string, string>> {
  const options = await prettier.resolveConfig(path.join(root, 'catalog', 'schema', 'category.schema.json'));
  const out = new Map<string, string>();
  for (const [kind, { schema, title }] of Object.entries(KINDS)) {
    // draft-07: the dialect of ajv's default class, which the loader compiles these schemas with.
    const text = JSON.stringify({ $schema: 'http://json-schema.org/draft-07/schema#', title, ...schema });
    out.set(`${kind}.schema.json`, await prettier.format(text, { ...options, parser: 'json' }));
  }
  return out;
}

async function main(): Promise<void> {
  const root = process.cwd();
  const dir = path.join(root, 'catalog', 'schema');
  fs.mkdirSync(dir, { recursive: true });
  for (const [name, text] of await editorSchemas(root)) {
    fs.writeFileSync(path.join(dir, name), text);
    console.log(`wrote catalog/schema/${name}`);
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) await main();
