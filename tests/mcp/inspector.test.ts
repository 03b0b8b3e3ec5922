// A client we did not write: the MCP Inspector's CLI (`@modelcontextprotocol/inspector --cli`) lists the
// tools of a running server over HTTP with a key header, and finds no error in their schemas.
import { execFile } from 'node:child_process';
import { createRequire } from 'node:module';
import path from 'node:path';
import { promisify } from 'node:util';
import { KEYS, listen, testApp } from '../helpers/app.js';

const run = promisify(execFile);
const INSPECTOR = path.join(
  path.dirname(createRequire(import.meta.url).resolve('@modelcontextprotocol/inspector/package.json')),
  'clients/launcher/build/index.js',
);

it('the MCP Inspector CLI lists all 79 tools, with no schema error', async () => {
  const t = await testApp();
  const server = await listen(t.app);
  try {
    const args = [
      '--cli',
      '--server-url',
      `${server.url}/mcp`,
      '--transport',
      'http',
      '--header',
      `X-API-Key: ${KEYS.premium}`,
      '--method',
      'tools/list',
    ];
    // The Inspector runs on the Node that runs the tests (24 here, from the `node` devDependency).
    const { stdout, stderr } = await run(process.execPath, [INSPECTOR, ...args], {
      timeout: 60_000,
      env: { ...process.env, NO_COLOR: '1' },
    });
    const listed = JSON.parse(stdout) as { tools: Array<{ name: string }>; nextCursor?: string };
    expect(listed.tools).toHaveLength(79);
    expect(listed.nextCursor).toBeUndefined();
    expect(listed.tools.map((x) => x.name)).toContain('tools_ccgen');
    // Its schema portability check: warnings are about nullable `type` arrays in output schemas (legal JSON Schema).
    expect(stderr).not.toMatch(/[1-9]\d* errors?/);
  } finally {
    await server.close();
    await t.close();
  }
}, 90_000);
