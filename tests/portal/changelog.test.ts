// /docs/changelog: the contract's CHANGELOG.md as a page, linked from /docs, with the released version's
// entry, its sections and `code` rendered, nothing of the file's text unescaped.
import request from 'supertest';
import fs from 'node:fs';
import path from 'node:path';
import { testApp, type TestApp } from '../helpers/app.js';
import { CONTRACT_VERSION } from '../../engine/contract-version.js';
import { ROOT } from '../helpers/paths.js';

let t: TestApp;
beforeAll(async () => {
  t = await testApp();
});
afterAll(async () => {
  await t.close();
});

test('/docs/changelog shows CHANGELOG.md, and /docs links to it', async () => {
  const res = await request(t.app).get('/docs/changelog').expect(200);
  expect(res.headers['content-type']).toMatch(/^text\/html/);
  expect(res.text).toContain('<h1>API changelog</h1>');
  const released = JSON.parse(fs.readFileSync(path.join(ROOT, 'openapi', 'released.json'), 'utf8')) as { info: { version: string } };
  expect(res.text).toContain(`<h2>${released.info.version} (`);
  expect(CONTRACT_VERSION.split('.')[0]).toBe(released.info.version.split('.')[0]);
  expect(res.text).toMatch(/<h3>Added<\/h3>\s*<ul><li>The <code>API-Version<\/code> header/);
  // Every heading of the file, each once.
  const headings = fs.readFileSync(path.join(ROOT, 'CHANGELOG.md'), 'utf8').match(/^#{2,3} .*$/gm)!;
  expect(res.text.match(/<h[23]>/g)).toHaveLength(headings.length);
  const docs = await request(t.app).get('/docs').expect(200);
  expect(docs.text).toContain('<a href="/docs/changelog">');
});
