// Maps the catalog's `adapter:` names to functions by loading adapters/<category>/<name>.(ts|js).
// Files starting with `_` are helpers, not adapters. Boot fails if an adapter file has no catalog entry.
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Adapter } from '../types.js';
import type { EndpointSpec } from './load.js';

export async function loadAdapters(dir: string, endpoints: EndpointSpec[]): Promise<Map<string, Adapter>> {
  const adapters = new Map<string, Adapter>();
  if (!fs.existsSync(dir)) return adapters;
  const wanted = new Set(endpoints.flatMap((e) => [e.adapter, ...(e.fallback ?? []).map((p) => p.adapter)]));
  for (const category of fs.readdirSync(dir).sort()) {
    const catDir = path.join(dir, category);
    if (!fs.statSync(catDir).isDirectory()) continue;
    for (const file of fs.readdirSync(catDir).sort()) {
      const m = /^([a-z0-9][a-z0-9-]*)\.(ts|js)$/.exec(file);
      if (!m || file.endsWith('.d.ts')) continue;
      const name = `${category}/${m[1]}`;
      if (!wanted.has(name)) throw new Error(`adapters/${name}.${m[2]} has no catalog entry (no endpoint says adapter: ${name})`);
      const mod = (await import(pathToFileURL(path.join(catDir, file)).href)) as { default?: unknown };
      if (typeof mod.default !== 'function') throw new Error(`adapters/${name}.${m[2]} must export a default async function`);
      adapters.set(name, mod.default as Adapter);
    }
  }
  return adapters;
}
