// docs/upstreams.md carries tables generated from the catalog and the adapters (scripts/upstreams-doc.ts):
// they must match what the code does now.
import fs from 'node:fs';
import path from 'node:path';
import { generate, render } from '../../scripts/upstreams-doc.js';
import { ROOT } from '../helpers/paths.js';

const root = ROOT;

test('docs/upstreams.md is up to date (npm run build && node dist/scripts/upstreams-doc.js)', () => {
  expect(fs.readFileSync(path.join(root, 'docs', 'upstreams.md'), 'utf8')).toBe(render(root));
});

test('every endpoint has a row, with the services it calls', () => {
  const text = generate(root);
  expect(text).toMatch(
    /\| `utilities\/tr` \| `libretranslate`, `gtx`, `mymemory` \| `UPSTREAM_LIBRETRANSLATE_URL` \(no default\), `UPSTREAM_LIBRETRANSLATE_KEYS`, `UPSTREAM_GTX_URL`, `UPSTREAM_MYMEMORY_URL`, `UPSTREAM_MYMEMORY_KEYS` \|/,
  );
  expect(text).toMatch(/\| `utilities\/wth` \| `open-meteo`, `wttr`, `open-meteo-geo` \|/);
  expect(text).toMatch(/\| `tools\/ccgen` \| embedded \| — \| yes \|/);
  expect(text).toMatch(
    /\| `tools\/bin-lookup` \| embedded, `binlist` \| `UPSTREAM_BINLIST_URL` \| yes \(embedded; a configured upstream adds to it\) \|/,
  );
  expect(text).toMatch(
    /\| `ai\/chat-1` \| `openai-compat` \| `UPSTREAM_OPENAI_COMPAT_URL` \(no default\), `UPSTREAM_OPENAI_COMPAT_KEYS` \| no: 503 until configured \|/,
  );
});
