import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { chromium } from 'playwright-core';
import { createApp } from '../server/app.js';
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'uua-perf-'));
const api = await createApp({
  ...process.env,
  DATA_DIR: dataDir,
  LOG_LEVEL: 'silent',
  PUBLIC_URL: 'http://127.0.0.1:3999',
  FREE_KEY: 'f',
  ANONYMOUS_KEY: 'a',
});
const server = http.createServer(api.app);
await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--headless', '--no-sandbox', '--disable-gpu'] });
for (const block of [false, true]) {
  const out: Record<string, number[]> = {};
  for (let i = 0; i < 4; i++) {
    const ctx = await browser.newContext({ viewport: { width: 412, height: 823 } });
    const page = await ctx.newPage();
    if (block) await page.route('**/docs.js', (r) => r.abort());
    const cdp = await ctx.newCDPSession(page);
    await cdp.send('Performance.enable');
    await page.goto(base + (process.env.P ?? '/docs/gen-models'));
    await page.waitForTimeout(300);
    const { metrics } = await cdp.send('Performance.getMetrics');
    for (const m of metrics)
      if (
        ['LayoutDuration', 'RecalcStyleDuration', 'ScriptDuration', 'TaskDuration', 'Nodes', 'LayoutCount', 'RecalcStyleCount'].includes(
          m.name,
        )
      )
        (out[m.name] ??= []).push(Math.round(m.value * (m.name.endsWith('Duration') ? 1000 : 1)));
    await ctx.close();
  }
  console.log(block ? 'no docs.js' : 'with docs.js', JSON.stringify(out));
}
await browser.close();
server.close();
await api.close();
process.exit(0);
