// The adapter registry (engine/catalog/registry.ts): the boot lists adapter files; each module is imported
// at its adapter's first call, once even when calls race, or by warm(); a module that is not an adapter
// fails its calls and is named by warm().
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { adapterRegistry } from '../../../engine/catalog/registry.js';
import type { EndpointSpec } from '../../../engine/catalog/load.js';
import type { AdapterContext } from '../../../engine/types.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'uua-registry-'));
fs.mkdirSync(path.join(dir, 'tools'));
fs.writeFileSync(path.join(dir, 'package.json'), '{ "type": "module" }\n');
// Each import of the good module counts itself on a global the test reads.
fs.writeFileSync(
  path.join(dir, 'tools', 'good.js'),
  'globalThis.__imports = (globalThis.__imports ?? 0) + 1;\nexport default async (params) => ({ echo: params.q });\n',
);
fs.writeFileSync(path.join(dir, 'tools', 'bad.js'), 'export const notDefault = 1;\n');
fs.writeFileSync(path.join(dir, 'tools', '_helper.js'), 'throw new Error("a helper is never imported as an adapter");\n');
const endpoints = [{ adapter: 'tools/good' }, { adapter: 'tools/bad' }, { adapter: 'tools/none' }] as EndpointSpec[];
const ctx = {} as AdapterContext;
const imports = () => (globalThis as { __imports?: number }).__imports ?? 0;

afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

test('nothing is imported at boot; the first calls import the module once and are answered', async () => {
  const registry = adapterRegistry(dir, endpoints);
  expect([...registry.adapters.keys()].sort()).toEqual(['tools/bad', 'tools/good']);
  expect(registry.cold()).toBe(2);
  expect(imports()).toBe(0);
  const good = registry.adapters.get('tools/good')!;
  const answers = await Promise.all([good({ q: 'a' }, ctx), good({ q: 'b' }, ctx)]);
  expect(answers).toEqual([{ echo: 'a' }, { echo: 'b' }]);
  expect(await good({ q: 'c' }, ctx)).toEqual({ echo: 'c' });
  expect(imports()).toBe(1);
  expect(registry.cold()).toBe(1);
});

test('a module without a default function fails its calls, and warm() names it', async () => {
  const registry = adapterRegistry(dir, endpoints);
  await expect(registry.adapters.get('tools/bad')!({}, ctx)).rejects.toThrow('adapters/tools/bad.js must export a default async function');
  const failed = await registry.warm();
  expect(failed.map((f) => [f.adapter, f.error.message])).toEqual([
    ['tools/bad', 'adapters/tools/bad.js must export a default async function'],
  ]);
  expect(registry.cold()).toBe(1);
});

test('every adapter file without a catalog entry is named at once, with the entry a slip may have meant', () => {
  const strays = fs.mkdtempSync(path.join(os.tmpdir(), 'uua-strays-'));
  fs.mkdirSync(path.join(strays, 'tools'));
  for (const f of ['git-user.ts', 'other.js']) fs.writeFileSync(path.join(strays, 'tools', f), 'export default async () => ({});\n');
  try {
    expect(() => adapterRegistry(strays, [{ adapter: 'tools/git-usr' }] as EndpointSpec[])).toThrow(
      [
        '2 adapter files have no catalog entry:',
        'adapters/tools/git-user.ts has no catalog entry (no endpoint says adapter: tools/git-user; one says adapter: tools/git-usr)',
        'adapters/tools/other.js has no catalog entry (no endpoint says adapter: tools/other)',
      ].join('\n'),
    );
  } finally {
    fs.rmSync(strays, { recursive: true, force: true });
  }
});
