// engine/upstream/undici.ts: the Agent and connector it loads are undici's own (the same classes its index
// exports), and loading them does not make Node load its bundled undici (the index's cookie helpers read
// globalThis.Headers, which does).
import { spawnSync } from 'node:child_process';
import * as Undici from 'undici';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { streamedRequest, undici } from '../../../engine/upstream/undici.js';
import { ROOT } from '../../helpers/paths.js';

test('the two modules are the ones undici’s index exports', async () => {
  const parts = await undici();
  expect(parts.Agent).toBe(Undici.Agent);
  expect(parts.buildConnector).toBe(Undici.buildConnector);
  expect(await undici()).toBe(parts);
});

test('streamedRequest: undici’s request() on a lone Agent, the body a stream', async () => {
  const server = http.createServer((_req, res) => res.end('streamed'));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { Agent } = await undici();
  const agent = new Agent();
  try {
    const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const res = await streamedRequest(agent, { origin, path: '/', method: 'GET' });
    expect(res.statusCode).toBe(200);
    expect(await res.body.text()).toBe('streamed');
  } finally {
    await agent.close();
    await new Promise((r) => server.close(r));
  }
});

test('a fresh process that loads them and makes an Agent does not load Node’s bundled undici', () => {
  // The build's module (npm test builds first): Node runs it as it is, with its own imports.
  const script = `
    const { undici } = await import('./dist/engine/upstream/undici.js');
    const { Agent, buildConnector } = await undici();
    await new Agent({ connect: buildConnector({}) }).close();
    console.log(JSON.stringify({ bundled: process.moduleLoadList.filter((m) => /undici/.test(m)) }));
  `;
  const out = spawnSync(process.execPath, ['--input-type=module', '-e', script], { cwd: ROOT, encoding: 'utf8' });
  expect(out.stderr).toBe('');
  expect(JSON.parse(out.stdout)).toEqual({ bundled: [] });
});
