// API_KEYS_FILE: a YAML list of { key, plan, name } loaded at boot into the key store.
import fs from 'node:fs';
import { createRequire } from 'node:module';
import type YAML from 'yaml';
import type { PlanSpec } from '../catalog/load.js';

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
