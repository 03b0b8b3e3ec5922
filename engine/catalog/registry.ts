// Maps the catalog's `adapter:` names to functions, from the files adapters/<category>/<name>.(ts|js).
// Files starting with `_` are helpers, not adapters. The boot lists the files and stops if one has no
// catalog entry; each module is imported at its adapter's first call, or by warm() (which the server runs
// once it listens), so the boot does not wait for ~80 modules and the libraries they bring.
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { setTimeout as pause } from 'node:timers/promises';
import type { Adapter } from '../types.js';
import type { EndpointSpec } from './load.js';
import { LoadOnce } from '../load-once.js';
import { nearest } from './did-you-mean.js';

export interface AdapterRegistry {
  /** Every adapter with a file, by name; a call before its module is imported waits for the import. */
  adapters: Map<string, Adapter>;
  /** Imports the modules not imported yet, one after another, letting requests in between; the adapters
   * that cannot be loaded, and why. */
  warm(pauseMs?: number): Promise<Array<{ adapter: string; error: Error }>>;
  /** Adapters whose module is not imported yet (/health's `warming`). */
  cold(): number;
}

/** An adapter whose module is imported at its first call (once: callers meanwhile share the import). */
function lazyAdapter(file: string, name: string) {
  const load = new LoadOnce(() =>
    import(pathToFileURL(file).href).then((mod: { default?: unknown }) => {
      if (typeof mod.default !== 'function') throw new Error(`adapters/${name}${path.extname(file)} must export a default async function`);
      return mod.default as Adapter;
    }),
  );
  const adapter: Adapter = (params, ctx) => {
    const loaded = load.value;
    return loaded ? loaded(params, ctx) : load.get().then((fn) => fn(params, ctx));
  };
  return { adapter, load };
}

export function adapterRegistry(dir: string, endpoints: EndpointSpec[]): AdapterRegistry {
  const lazy = new Map<string, ReturnType<typeof lazyAdapter>>();
  // Every stray file is named at once, so one boot tells the maintainer all there is to fix.
  const strays: string[] = [];
  if (fs.existsSync(dir)) {
    const wanted = new Set(endpoints.flatMap((e) => [e.adapter, ...(e.fallback ?? []).map((p) => p.adapter)]));
    for (const category of fs.readdirSync(dir).sort()) {
      const catDir = path.join(dir, category);
      if (!fs.statSync(catDir).isDirectory()) continue;
      for (const file of fs.readdirSync(catDir).sort()) {
        const m = /^([a-z0-9][a-z0-9-]*)\.(ts|js)$/.exec(file);
        if (!m || file.endsWith('.d.ts')) continue;
        const name = `${category}/${m[1]}`;
        if (wanted.has(name)) lazy.set(name, lazyAdapter(path.join(catDir, file), name));
        else {
          // A catalog entry whose adapter: has a slip names a file that does not exist: show the pair.
          const near = nearest(name, wanted);
          strays.push(
            `adapters/${name}.${m[2]} has no catalog entry (no endpoint says adapter: ${name}${near ? `; one says adapter: ${near}` : ''})`,
          );
        }
      }
    }
  }
  if (strays.length)
    throw new Error(strays.length === 1 ? strays[0] : `${strays.length} adapter files have no catalog entry:\n${strays.join('\n')}`);
  return {
    adapters: new Map([...lazy].map(([name, l]) => [name, l.adapter])),
    async warm(pauseMs = 10) {
      const failed: Array<{ adapter: string; error: Error }> = [];
      for (const [name, l] of lazy) {
        // Node's module loader reads and evaluates a module without yielding to the event loop: a pause
        // between modules lets the requests that came in meanwhile be answered.
        await pause(pauseMs);
        await l.load.get().catch((error: Error) => failed.push({ adapter: name, error }));
      }
      return failed;
    },
    cold: () => [...lazy.values()].filter((l) => l.load.value === undefined).length,
  };
}
