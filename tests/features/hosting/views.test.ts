// features/hosting/views.ts: every hosting page escapes every value a caller gave (through engine/html.ts, the
// portal's tag), wherever it lands: the title, a heading, an attribute, a class, the text of a paste.
import { documentOf, deleteImagePage, filePage, imagePage, notFoundPage, pastePage } from '../../../features/hosting/views.js';
import { FILE, IMAGE, PASTE } from '../../helpers/hosted.js';

const HOSTILE = `"><script>alert('x')</script>&`;
const ESCAPED = '&quot;&gt;&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;&amp;';
const BASE = { id: 'Abc12345', contentType: 'image/png', size: 2048, createdAt: '2025-01-02T03:04:05.678Z', expiresAt: null };

test.each([
  ['paste', pastePage({ ...BASE, ...PASTE, name: HOSTILE, format: HOSTILE }, HOSTILE), 5],
  ['image', imagePage({ ...BASE, ...IMAGE, fileName: HOSTILE, ext: 'png' }), 3],
  ['image deletion', deleteImagePage({ ...BASE, ...IMAGE, fileName: HOSTILE }), 1],
  ['file', filePage({ ...BASE, ...FILE, fileName: HOSTILE, md5: HOSTILE }), 3],
])('the %s page escapes every caller-given value', (_name, page, times) => {
  const doc = documentOf(page, 'bm9uY2U=');
  expect(doc).not.toContain('<script');
  expect(doc.split(ESCAPED).length - 1).toBe(times);
});

test('the document: the title escaped, the nonce on the style block, the robots tag only when asked', () => {
  const doc = documentOf(pastePage({ ...BASE, ...PASTE, name: 'a & b', private: 1 }, 'text'), 'bm9uY2U+Lw==');
  expect(doc).toContain('<title>a &amp; b - paste</title>');
  expect(doc).toContain('<style nonce="bm9uY2U+Lw==">');
  expect(doc).toContain('<meta name="robots" content="noindex, nofollow">\n<title>');
  expect(documentOf(pastePage({ ...BASE, ...PASTE }, 'text'), 'n')).not.toContain('name="robots"');
  expect(documentOf(notFoundPage('file'), 'n')).toContain('<h1>Not found</h1><p>This file does not exist or has expired.</p>');
});

test('sizes, times and expiry as the pages show them', () => {
  const doc = documentOf(filePage({ ...BASE, ...FILE, size: 3 * 1048576, expiresAt: '2099-01-01T00:00:00.000Z' }), 'n');
  expect(doc).toContain('3.0 MB · md5  · uploaded 2025-01-02T03:04:05Z · expires 2099-01-01T00:00:00Z');
  expect(documentOf(imagePage({ ...BASE, ...IMAGE, width: 4, height: 3 }), 'n')).toContain('4 × 3 · 2.0 KB · image/png · never expires');
  expect(documentOf(pastePage({ ...BASE, ...PASTE, size: 5 }, 'x'), 'n')).toContain('text · 5 B · created');
});
