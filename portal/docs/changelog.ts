// /docs/changelog: the contract's CHANGELOG.md as a page. The file holds headings, paragraphs and lists
// with `code` and links, written by hand and by `npm run contract -- --release`: a few rules render it.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { html, type Safe } from '../../engine/html.js';

// portal/docs/ in the source tree, dist/portal/docs/ once built: the project root is two or three levels up.
const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, here.includes(`${path.sep}dist${path.sep}`) ? '../../..' : '../..');
const CHANGELOG_FILE = path.join(root, 'CHANGELOG.md');

/** `code`, [text](url) and plain text of one line. */
function inline(text: string): Safe[] {
  const out: Safe[] = [];
  const pattern = /`([^`]+)`|\[([^\]]+)\]\(([^)\s]+)\)/g;
  let last = 0;
  for (const m of text.matchAll(pattern)) {
    out.push(html`${text.slice(last, m.index)}`);
    out.push(m[1] !== undefined ? html`<code>${m[1]}</code>` : html`<a href="${m[3]}">${m[2]}</a>`);
    last = m.index + m[0].length;
  }
  out.push(html`${text.slice(last)}`);
  return out;
}

function changelogBody(markdown: string): Safe {
  const blocks: Safe[] = [];
  for (const block of markdown.split(/\n\s*\n/)) {
    const lines = block.trim().split('\n');
    const heading = /^(#{1,3}) (.*)$/.exec(lines[0]);
    if (!lines[0]) continue;
    if (heading) {
      // `#` is the file's title, which the page's own h1 replaces; a release is `##`, its sections `###`.
      blocks.push(heading[1].length <= 2 ? html`<h2>${inline(heading[2])}</h2>` : html`<h3>${inline(heading[2])}</h3>`);
    } else if (lines.every((l) => /^(- |\s)/.test(l))) {
      const items = lines.join('\n').split(/\n(?=- )/);
      blocks.push(html`<ul>${items.map((item) => html`<li>${inline(item.replace(/^- /, '').replace(/\s+/g, ' '))}</li>`)}</ul>`);
    } else {
      blocks.push(html`<p>${inline(lines.join(' '))}</p>`);
    }
  }
  return html`<div class="docs-body"><h1>API changelog</h1>${blocks.slice(1)}</div>`;
}

let cached: Safe | undefined;

/** The page's body, read once (the file changes with a release, which is a new deployment). */
export function changelogPage(): Safe {
  if (cached) return cached;
  const text = fs.existsSync(CHANGELOG_FILE)
    ? fs.readFileSync(CHANGELOG_FILE, 'utf8')
    : '# Changelog\n\nThis installation has no CHANGELOG.md.';
  cached = changelogBody(text);
  return cached;
}
