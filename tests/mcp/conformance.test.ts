// The official MCP conformance suite (@modelcontextprotocol/conformance, every server scenario) against /mcp.
// The suite's client sends no headers of its own, so it reaches /mcp through a loopback proxy that adds the
// key; the app is configured with the proxy's port as its own (PORT, and the default PUBLIC_URL), so the
// suite's localhost Origin is this server's. Every scenario that applies to a tools server passes; the
// others (docs/mcp.md lists them with why) ask for the suite's own test tools and prompts, resources,
// sampling, elicitation or sessions, which this server does not have.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { KEYS, listen, testApp, type TestApp } from '../helpers/app.js';
import { ROOT } from '../helpers/paths.js';

/** Scenarios that apply to a stateless tools server: each must pass. */
const APPLIES = ['server-initialize', 'ping', 'tools-list', 'completion-complete', 'prompts-list', 'dns-rebinding-protection'];

/** Scenarios that do not apply, and why (docs/mcp.md's table says the same). */
const NOT_APPLICABLE: Record<string, string> = {
  'logging-set-level': 'no log notifications: stateless, so no session would keep a level; failures come back as tool results',
  'tools-call-simple-text': "the suite's own tool test_simple_text",
  'tools-call-image': "the suite's own tool test_image_content",
  'tools-call-audio': "the suite's own tool test_audio_content",
  'tools-call-embedded-resource': "the suite's own tool test_embedded_resource",
  'tools-call-mixed-content': "the suite's own tool test_multiple_content_types",
  'tools-call-with-logging': "the suite's own tool test_tool_with_logging",
  'tools-call-error': "the suite's own tool test_error_handling",
  'tools-call-with-progress': "the suite's own tool test_tool_with_progress (our tools' progress: tests/mcp/progress.test.ts)",
  'tools-call-sampling': "the suite's own tool test_sampling; the server never asks the client's model",
  'tools-call-elicitation': "the suite's own tool test_elicitation; the server never asks the user",
  'json-schema-2020-12': "the suite's own tool json_schema_2020_12_tool",
  'elicitation-sep1034-defaults': "the suite's own tool; no elicitation",
  'elicitation-sep1330-enums': "the suite's own tool; no elicitation",
  'server-sse-polling': 'needs a session and a resumable stream: /mcp is stateless (one POST, one answer); the suite warns and skips',
  'server-sse-multiple-streams': 'needs a session and a GET stream: /mcp is stateless (one POST, one answer); the suite warns and skips',
  'resources-list': 'no resources: every endpoint is a tool',
  'resources-read-text': 'no resources',
  'resources-read-binary': 'no resources',
  'resources-templates-read': 'no resources',
  'resources-subscribe': 'no resources',
  'resources-unsubscribe': 'no resources',
  'prompts-get-simple': "the suite's own prompt test_simple_prompt (ours are one per tool)",
  'prompts-get-with-args': "the suite's own prompt test_prompt_with_arguments",
  'prompts-get-embedded-resource': "the suite's own prompt test_prompt_with_embedded_resource",
  'prompts-get-with-image': "the suite's own prompt test_prompt_with_image",
};

interface Check {
  id: string;
  status: 'SUCCESS' | 'FAILURE' | 'WARNING' | 'INFO' | 'SKIPPED';
  errorMessage?: string;
}

let t: TestApp;
let server: Awaited<ReturnType<typeof listen>>;
let proxy: http.Server;
let port: number;
const results = new Map<string, Check[]>();
const outDir = fs.mkdtempSync(path.join(os.tmpdir(), 'uua-mcp-conformance-'));

/** Runs the suite's CLI to its end; its own exit code is non-zero while scenarios that do not apply fail. */
function runSuite(url: string): Promise<string> {
  const bin = path.join(ROOT, 'node_modules', '@modelcontextprotocol', 'conformance', 'dist', 'index.js');
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [bin, 'server', '--url', url, '--suite', 'all', '-o', outDir], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (c: Buffer) => (output += c.toString()));
    child.stderr.on('data', (c: Buffer) => (output += c.toString()));
    child.on('error', reject);
    child.on('exit', () => resolve(output));
  });
}

beforeAll(async () => {
  // The proxy first: its port is the app's configured port.
  let target = 0;
  proxy = http.createServer((req, res) => {
    const up = http.request(
      { host: '127.0.0.1', port: target, method: req.method, path: req.url, headers: { ...req.headers, 'x-api-key': KEYS.premium } },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    up.on('error', () => res.destroy());
    req.pipe(up);
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  port = (proxy.address() as AddressInfo).port;
  t = await testApp({ PORT: String(port), PUBLIC_URL: undefined });
  server = await listen(t.app);
  target = Number(new URL(server.url).port);
  const output = await runSuite(`http://127.0.0.1:${port}/mcp`);
  for (const dir of fs.readdirSync(outDir)) {
    const scenario = dir.replace(/^server-/, '').replace(/-\d{4}-\d{2}-\d{2}T[\d-]+Z$/, '');
    const file = path.join(outDir, dir, 'checks.json');
    if (fs.existsSync(file)) results.set(scenario, JSON.parse(fs.readFileSync(file, 'utf8')) as Check[]);
  }
  if (!results.size) throw new Error(`the conformance suite wrote no results:\n${output.slice(-3000)}`);
}, 300_000);

afterAll(async () => {
  proxy.closeAllConnections();
  await new Promise((resolve) => proxy.close(resolve));
  await server.close();
  await t.close();
  fs.rmSync(outDir, { recursive: true, force: true });
});

test('every scenario of the suite is either one that applies or one listed with why not', () => {
  expect([...results.keys()].sort()).toEqual([...APPLIES, ...Object.keys(NOT_APPLICABLE)].sort());
});

test.each(APPLIES)('%s passes', (scenario) => {
  const failed = (results.get(scenario) ?? []).filter((c) => c.status === 'FAILURE');
  expect(results.get(scenario)?.length).toBeGreaterThan(0);
  expect(failed).toEqual([]);
});

test('the table: scenario → pass, fail or not applicable', () => {
  const rows = [...results.entries()].map(([scenario, checks]) => {
    const verdict = checks.some((c) => c.status === 'FAILURE') ? 'fail' : checks.some((c) => c.status === 'WARNING') ? 'warning' : 'pass';
    return `${scenario}: ${verdict}${NOT_APPLICABLE[scenario] ? ` (not applicable: ${NOT_APPLICABLE[scenario]})` : ''}`;
  });
  console.log(rows.join('\n'));
  expect(rows.filter((r) => r.includes(': pass')).length).toBeGreaterThanOrEqual(APPLIES.length);
});
