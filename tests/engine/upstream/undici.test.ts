// engine/upstream/undici.ts: the Agent and connector it loads are undici's own (the same classes its index
// exports), and loading them leaves globalThis.Headers unread, so Node never loads its bundled undici for us.
import { spawnSync } from 'node:child_process';
import * as Undici from 'undici';
import { undici } from '../../../engine/upstream/undici.js';
import { ROOT } from '../../helpers/paths.js';

test('the two modules are the ones undici’s index exports', async () => {
  const parts = await undici();
  expect(parts.Agent).toBe(Undici.Agent);
  expect(parts.buildConnector).toBe(Undici.buildConnector);
  expect(await undici()).toBe(parts);
});

test('a fresh process that loads them and makes an Agent never reads globalThis.Headers', () => {
  const script = `
    let read = false;
    const own = Object.getOwnPropertyDescriptor(globalThis, 'Headers');
    Object.defineProperty(globalThis, 'Headers', { configurable: true, get() { read = true; return own.get ? own.get.call(this) : own.value; } });
    const { undici } = await import('./engine/upstream/undici.ts');
    const { Agent, buildConnector } = await undici();
    await new Agent({ connect: buildConnector({}) }).close();
    console.log(JSON.stringify({ read }));
  `;
  const out = spawnSync(process.execPath, ['--input-type=module', '-e', script], { cwd: ROOT, encoding: 'utf8' });
  expect(out.stderr).toBe('');
  expect(JSON.parse(out.stdout)).toEqual({ read: false });
});
