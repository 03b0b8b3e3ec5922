// The API reference, rendered on the server from the OpenAPI document /openapi.json serves: /docs (how
// to call, the categories, errors and limits, MCP) and /docs/<category> (its operations, each with its
// samples, example answer and Try it). A sidebar lists the categories under the landing page's titles and
// the current category's operations by title; on a phone the sidebar stacks above the page and the
// operations are listed at the top of the page instead. Plain pages: readable without JavaScript, nothing
// inline (CSP default-src 'self'); docs.js adds the search box, copy buttons, the samples' language choice
// and Try it.
import { ERROR_STATUS } from '../../engine/errors.js';
import { html, type Safe } from '../../engine/html.js';
import { categoryTitle } from './categories.js';
import { operationView, prose, type Operation, type Schema } from './operation.js';
import { anchorOf } from './search-index.js';

/** A category with more operations than this folds each one to its heading and summary. */
const FOLD_OVER = 6;

/** The parts of the OpenAPI document the reference reads. */
export interface ReferenceDoc {
  info: { description: string };
  paths: Record<string, Partial<Record<'get' | 'post', Operation>>>;
  components: { schemas: Record<string, Schema> };
}

/** One key Try it may send: a key the page knows, or one of the viewer's own known only by its hint. */
export interface TryKey {
  label: string;
  /** The key itself, when the server may show it (the anonymous and shared free keys). */
  value?: string;
  /** A personal key's record id: the browser holds its secret, if it was shown there (docs.js). */
  id?: string;
  hint?: string;
}

export interface DocsPage {
  doc: ReferenceDoc;
  publicUrl: string;
  anonymousKey: string;
  signedIn: boolean;
  /** What Try it offers, the default first. */
  keys: TryKey[];
}

interface Entry {
  method: 'GET' | 'POST';
  path: string;
  op: Operation;
}

/** The operations of each category (the operation's first tag), in the document's order. */
function categoriesOf(doc: ReferenceDoc): Map<string, Entry[]> {
  const out = new Map<string, Entry[]>();
  for (const [path, item] of Object.entries(doc.paths))
    for (const method of ['get', 'post'] as const) {
      const op = item[method];
      if (!op) continue;
      const c = op.tags[0];
      out.set(c, [...(out.get(c) ?? []), { method: method.toUpperCase() as Entry['method'], path, op }]);
    }
  return out;
}

const titleOf = (e: Entry) => e.op['x-title'] ?? e.op.summary;
const nameOf = (e: Entry) => e.path.split('/').pop() ?? e.path;

/** A category's operations as links to them: title, then the spec's id. */
const operationLinks = (c: string, list: Entry[]) =>
  html`${list.map((e) => html`<li><a href="#${anchorOf(c, e.method, e.path)}">${titleOf(e)} <span class="op-id">${nameOf(e)}</span></a></li>`)}`;

/** The search box (docs.js shows it and searches /docs/search.json; without JavaScript it stays hidden). */
const searchBox = html`<div class="docs-search" role="search" hidden>
<label for="docs-search">Search endpoints</label>
<input id="docs-search" type="search" autocomplete="off" spellcheck="false" placeholder="Title, id, parameter, provider" aria-describedby="docs-search-keys" aria-controls="docs-search-results">
<p class="small muted" id="docs-search-keys">Press <kbd>/</kbd> or <kbd>Ctrl</kbd> <kbd>K</kbd> to search; arrow keys move through the results.</p>
<p class="small" id="docs-search-status" role="status"></p>
<ul id="docs-search-results" class="search-results" hidden></ul>
</div>`;

function sidebar(categories: Map<string, Entry[]>, current?: string): Safe {
  return html`<nav class="docs-nav" aria-label="Reference">
${searchBox}
<p><a href="/docs"${current ? '' : ' aria-current="page"'}>Overview</a></p>
<ul>${[...categories].map(
    ([c, list]) =>
      html`<li><a href="/docs/${c}"${c === current ? ' aria-current="page"' : ''}>${categoryTitle(c)}</a> <span class="count">${list.length}</span>${
        c === current ? html`<ul class="ops">${operationLinks(c, list)}</ul>` : ''
      }</li>`,
  )}</ul>
</nav>`;
}

/** The key the samples are written with: the first the server may show (docs.js puts the chosen one in). */
const sampleKeyOf = (o: DocsPage) => o.keys.find((k) => k.value)?.value ?? o.anonymousKey;

function keyPicker(o: DocsPage): Safe {
  return html`<form class="try-key card" id="try-key-form">
<label for="try-key">Key for Try it
<select id="try-key" data-sample-key="${sampleKeyOf(o)}">${o.keys.map(
    (k) =>
      html`<option${k.value ? html` value="${k.value}"` : html` value="" data-key-id="${k.id ?? ''}" data-hint="${k.hint ?? ''}"`}>${k.label}</option>`,
  )}</select></label>
<p class="small muted" id="try-key-note">${
    o.signedIn
      ? html`Calls made with your keys show on your <a href="/dashboard/usage">usage page</a>.`
      : html`The anonymous key is shared by everyone; <a href="/signup">sign up</a> for a key of your own.`
  }</p>
<label for="try-key-paste" class="paste" hidden>Paste this key (shown once when it was made; kept in this tab until you close it or sign out)
<input id="try-key-paste" type="password" autocomplete="off" spellcheck="false"></label>
</form>`;
}

/** /docs: how to call, the categories, errors and limits, and MCP. */
export function docsOverview(o: DocsPage): Safe {
  const categories = categoriesOf(o.doc);
  const intro = o.doc.info.description.split('\n\n');
  return html`<div class="docs">
${sidebar(categories)}
<div class="docs-body">
<h1>API reference</h1>
${intro.map((p) => html`<p>${prose(p)}</p>`)}
<p>Try it with the anonymous key: <code class="key">${o.anonymousKey}</code>${
    o.signedIn
      ? html` or your own (pick it above each category's endpoints).`
      : html`; <a href="/signup">sign up</a> for a key of your own.`
  }</p>
<h2 id="categories">Categories</h2>
<ul class="grid categories">${[...categories].map(
    ([c, list]) => html`<li class="card"><a href="/docs/${c}"><strong>${categoryTitle(c)}</strong></a>
<span class="badge">${list.length} endpoint${list.length === 1 ? '' : 's'}</span>
<p class="small muted">${list.map((e) => titleOf(e)).join(', ')}</p></li>`,
  )}</ul>
<h2 id="answers">Answers</h2>
<p>A success is <code>{"success": true, "creator", "source", "data", "metadata"}</code>: the endpoint's answer is in <code>data</code>; <code>source</code> says who answered (an upstream, or <code>embedded</code>). An error is <code>{"success": false, "error": "…", "code": "…"}</code>:</p>
<div class="table-wrap"><table id="errors"><thead><tr><th scope="col">Status</th><th scope="col">Code</th></tr></thead>
<tbody>${Object.entries(ERROR_STATUS)
    .sort((a, b) => a[1] - b[1])
    .map(([code, status]) => html`<tr><td>${status}</td><td><code>${code}</code></td></tr>`)}</tbody></table></div>
<h2 id="mcp">AI agents (MCP)</h2>
<p>Every endpoint is also a tool of the MCP server at <code>${o.publicUrl}/mcp</code> (Streamable HTTP), with the same key in the <code>X-API-Key</code> header:</p>
<pre tabindex="0"><code>${mcpConfig(o.publicUrl)}</code></pre>
<p class="small muted">The raw OpenAPI document: <a href="/openapi.json">/openapi.json</a>. What changed in it, version by version: <a href="/docs/changelog">the changelog</a>.</p>
</div></div>`;
}

/** /docs/<category>: its operations; `replay` opens one's Try it with the values of a logged call. */
export function docsCategory(o: DocsPage, category: string, replay?: { path: string; values: Record<string, string> }): Safe | undefined {
  const categories = categoriesOf(o.doc);
  const list = categories.get(category);
  if (!list) return undefined;
  return html`<div class="docs">
${sidebar(categories, category)}
<div class="docs-body">
<h1>${categoryTitle(category)}</h1>
<p class="lead">${list.length} endpoint${list.length === 1 ? '' : 's'}. Samples send the key in the <code>X-API-Key</code> header.</p>
<nav class="op-index" aria-labelledby="op-index-title">
<h2 id="op-index-title">In this category</h2>
<ul>${operationLinks(category, list)}</ul>
</nav>
${keyPicker(o)}
<div class="lang-pick" hidden><span id="lang-label">Samples in</span> <span role="group" aria-labelledby="lang-label"></span></div>
${list.map((e) =>
  operationView(
    {
      ...e,
      schemas: o.doc.components.schemas,
      publicUrl: o.publicUrl,
      sampleKey: sampleKeyOf(o),
      replay: replay?.path === e.path ? replay.values : undefined,
      // A long category folds its operations, all but the one replayed.
      folded: list.length > FOLD_OVER && replay?.path !== e.path,
    },
    category,
  ),
)}
</div></div>`;
}

/** What an MCP client needs (docs/mcp.md): the URL and the key header. */
function mcpConfig(publicUrl: string): string {
  const server = { type: 'http', url: `${publicUrl}/mcp`, headers: { 'X-API-Key': 'YOUR_KEY' } };
  return JSON.stringify({ mcpServers: { 'unified-utility-api': server } }, null, 2);
}
