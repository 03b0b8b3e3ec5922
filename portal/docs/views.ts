// The API reference, rendered on the server from the OpenAPI document /openapi.json serves: /docs (how
// to call, the categories, errors and limits, MCP) and /docs/<category> (its operations, each with its
// samples, example answer and Try it). A sidebar lists the categories under the landing page's titles.
// Plain pages: readable without JavaScript, nothing inline (CSP default-src 'self'); docs.js adds the
// samples' language choice and sends Try it requests.
import { ERROR_STATUS } from '../../engine/errors.js';
import { html, type Safe } from '../../engine/html.js';
import { categoryTitle } from './categories.js';
import { operationView, prose, type Operation, type Schema } from './operation.js';

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

function sidebar(categories: Map<string, Entry[]>, current?: string): Safe {
  return html`<nav class="docs-nav" aria-label="Reference">
<p><a href="/docs"${current ? '' : ' aria-current="page"'}>Overview</a></p>
<ul>${[...categories].map(
    ([c, list]) =>
      html`<li><a href="/docs/${c}"${c === current ? ' aria-current="page"' : ''}>${categoryTitle(c)}</a> <span class="count">${list.length}</span>${
        c === current
          ? html`<ul>${list.map((e) => html`<li><a href="#tag/${c}/${e.method}${e.path}">${e.path.replace(`/api/v1/${c}/`, '')}</a></li>`)}</ul>`
          : ''
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
<p class="small muted">${list.map((e) => e.path.replace(`/api/v1/${c}/`, '')).join(', ')}</p></li>`,
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
