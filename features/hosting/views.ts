// The hosting pages (a paste, an image's viewer and its deletion, a file's download page, not found) as
// typed functions of their blob's metadata, written with the portal's `html` tag (engine/html.ts): the tag
// escapes every value, so a title, a file name or the text of a paste never reaches a page as markup.
// features/hosting/send.ts sends them under a CSP that allows no script.
import { html, type Safe } from '../../engine/html.js';
import type { FileMeta, HostedKind, HostedMeta, ImageMeta, PasteMeta } from './types.js';

/** A page before its document: the title (escaped in the document), the body, whether robots may index it. */
export interface Page {
  title: string;
  body: Safe;
  noindex?: boolean;
}

const NOINDEX = html`<meta name="robots" content="noindex, nofollow">
`;

/** The whole document: no script at all, one style block allowed by its nonce (dark when the system is), images only from here. */
export function documentOf(page: Page, nonce: string): string {
  return html`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
${page.noindex && NOINDEX}<title>${page.title}</title>
<style nonce="${nonce}">body{font:15px/1.5 system-ui,sans-serif;max-width:60rem;margin:2rem auto;padding:0 1rem;color:#222}
pre{background:#f6f8fa;border:1px solid #ddd;padding:1rem;overflow:auto;white-space:pre-wrap;word-break:break-word}
.meta{color:#666;font-size:13px}img{max-width:100%;height:auto;border:1px solid #ddd}a.button,button{display:inline-block;padding:.5rem 1rem;background:#0366d6;color:#fff;border:0;border-radius:4px;text-decoration:none;font-size:15px;cursor:pointer}
:root{color-scheme:light dark}@media (prefers-color-scheme:dark){body{background:#0f1318;color:#e3e7ed}pre{background:#171c23;border-color:#2f3742}.meta{color:#a4adba}a{color:#8ea8ff}img{border-color:#2f3742}}</style>
</head><body><main>
${page.body}
</main></body></html>`.value;
}

function humanSize(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KB`;
  return `${(n / 1048576).toFixed(1)} MB`;
}

/** An ISO time to the second: what a reader needs of it. */
const toSecond = (iso: string) => iso.replace(/\.\d{3}Z$/, 'Z');

const expiry = (meta: HostedMeta) => (meta.expiresAt ? `expires ${toSecond(meta.expiresAt)}` : 'never expires');

export function pastePage(meta: PasteMeta, text: string): Page {
  const unlisted = meta.private === 1;
  return {
    title: `${meta.name} - paste`,
    body: html`<h1>${meta.name}</h1>
<p class="meta">${meta.format} · ${humanSize(meta.size)} · created ${toSecond(meta.createdAt)} · ${expiry(meta)}${unlisted && ' · unlisted'} · <a href="/p/${meta.id}/raw">raw</a></p>
<pre><code class="language-${meta.format}">${text}</code></pre>`,
    noindex: unlisted,
  };
}

export function imagePage(meta: ImageMeta): Page {
  const src = `/i/${meta.id}.${meta.ext}`;
  const dims = meta.width && meta.height ? `${meta.width} × ${meta.height} · ` : '';
  return {
    title: `${meta.fileName} - image`,
    body: html`<h1>${meta.fileName}</h1>
<p class="meta">${dims}${humanSize(meta.size)} · ${meta.contentType} · ${expiry(meta)}</p>
<p><a href="${src}"><img src="${src}" alt="${meta.fileName}"></a></p>`,
  };
}

/** What an image's delete_url shows before its form is posted. */
export function deleteImagePage(meta: ImageMeta): Page {
  return {
    title: 'Delete image',
    body: html`<h1>Delete this image?</h1>
<p class="meta">${meta.fileName} · ${humanSize(meta.size)}</p>
<form method="post"><button type="submit">Delete permanently</button></form>`,
    noindex: true,
  };
}

export const imageDeletedPage: Page = {
  title: 'Image deleted',
  body: html`<h1>Image deleted</h1><p>The image and its links are gone.</p>`,
  noindex: true,
};

export function filePage(meta: FileMeta): Page {
  const href = `/f/${meta.id}/${encodeURIComponent(meta.fileName)}`;
  return {
    title: `${meta.fileName} - download`,
    body: html`<h1>${meta.fileName}</h1>
<p class="meta">${humanSize(meta.size)} · md5 ${meta.md5} · uploaded ${toSecond(meta.createdAt)} · ${expiry(meta)}</p>
<p><a class="button" href="${href}" download>Download</a></p>`,
  };
}

export function notFoundPage(what: Exclude<HostedKind, 'media'>): Page {
  return { title: 'Not found', body: html`<h1>Not found</h1><p>This ${what} does not exist or has expired.</p>`, noindex: true };
}
