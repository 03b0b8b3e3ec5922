// API_KEYS_FILE: a YAML list of { key, plan, name } loaded at boot into the key store; and keys.json, the
// file key store of earlier versions, imported once into the keys' table.
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import type YAML from 'yaml';
import type { PlanSpec } from '../catalog/load.js';
import type { KeyRecord, KeyStore } from './keystore.js';

export interface KeyEntry {
  key: string;
  plan: string;
  name: string;
}

export function loadKeysFile(file: string, plans: Record<string, PlanSpec>): KeyEntry[] {
  // The YAML parser is required only when there is a keys file: the boot does not otherwise need it.
  const yaml = createRequire(import.meta.url)('yaml') as typeof YAML;
  const doc = yaml.parse(fs.readFileSync(file, 'utf8')) as unknown;
  if (!Array.isArray(doc)) throw new Error(`${file}: expected a YAML list of { key, plan, name }`);
  return doc.map((e, i) => {
    const { key, plan, name } = (e ?? {}) as Partial<KeyEntry>;
    if (typeof key !== 'string' || key.length < 8) throw new Error(`${file}: entry ${i + 1}: key must be a string of 8+ characters`);
    if (typeof plan !== 'string' || !plans[plan])
      throw new Error(`${file}: entry ${i + 1}: plan must be one of ${Object.keys(plans).join(', ')}`);
    return { key, plan, name: typeof name === 'string' ? name : `key ${i + 1}` };
  });
}

/** DATA_DIR/keys.json (a JSON list of { id, hash, plan, name, createdAt }): imported, then renamed keys.json.imported. */
export async function importKeysJson(keys: Pick<KeyStore, 'import'>, dataDir: string): Promise<void> {
  const file = path.join(dataDir, 'keys.json');
  if (!fs.existsSync(file)) return;
  const recs = JSON.parse(fs.readFileSync(file, 'utf8')) as KeyRecord[];
  await keys.import(recs);
  fs.renameSync(file, `${file}.imported`);
}
