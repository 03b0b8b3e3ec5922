// One operation of the reference (/docs/<category>), rendered on the server from the OpenAPI document that
// /openapi.json serves: its title beside the spec's id, what it does, its parameters, a request in each
// sample language, the documented example answer, and a Try it form (portal/static/docs.js sends it with
// the chosen key and shows the answer's status, time, headers and body, and the request in each language:
// the parts of that answer are made there, on first use, which keeps a long category's page light).
// In a long category all but the heading and summary fold away, so the page is a list to scan. The page
// carries curl's sample; the browser writes another language's when it is chosen, from the request in
// data-request, which keeps the pages light (without JavaScript, curl's is there).
import { html, type Safe } from '../../engine/html.js';
import { LANGUAGES, sample, sdkNames } from '../shared/snippets.js';
import { anchorOf } from './search-index.js';

export interface Schema {
  type?: string | string[];
  enum?: unknown[];
  const?: unknown;
  format?: string;
  pattern?: string;
  minimum?: number;
  maximum?: number;
  maxLength?: number;
  default?: unknown;
  description?: string;
  properties?: Record<string, Schema>;
  required?: string[];
  $ref?: string;
}

interface Parameter {
  name: string;
  in: string;
  required?: boolean;
  description?: string;
  schema: Schema;
  example?: unknown;
}

interface Media {
  schema?: Schema;
  example?: unknown;
}

export interface Operation {
  summary: string;
  /** What a person calls it (the catalog's `title`). */
  'x-title'?: string;
  description?: string;
  tags: string[];
  parameters?: Parameter[];
  requestBody?: { content: Record<string, Media> };
  responses: Record<string, { content?: Record<string, Media>; $ref?: string }>;
}

/** One operation with what it needs from the rest of the document. */
export interface OperationView {
  method: 'GET' | 'POST';
  path: string;
  op: Operation;
  /** components.schemas of the document, for the $ref of request bodies. */
  schemas: Record<string, Schema>;
  publicUrl: string;
  /** The key the samples show. */
  sampleKey: string;
  /** Whether all but the heading and summary start folded (a long category). */
  folded: boolean;
  /** Values to put in this operation's Try it form, opened (Replay in Try it, from the request log). */
  replay?: Record<string, string>;
}

const fieldId = (path: string, name: string) => `try${path.replace(/[^A-Za-z0-9]+/g, '-')}-${name}`;

/** Text with `code` spans, as the document's descriptions write them. */
export function prose(text: string): Safe {
  return html`${text.split('`').map((part, i) => (i % 2 ? html`<code>${part}</code>` : part))}`;
}

function typeWords(s: Schema): string {
  if (s.const !== undefined) return JSON.stringify(s.const);
  const type = Array.isArray(s.type) ? s.type.join(' or ') : (s.type ?? 'any');
  if (s.format === 'binary') return 'file';
  const out = [type];
  if (s.format) out.push(`(${s.format})`);
  if (s.minimum !== undefined || s.maximum !== undefined) out.push(`${s.minimum ?? '…'} to ${s.maximum ?? '…'}`);
  return out.join(' ');
}

interface Field {
  name: string;
  required: boolean;
  description?: string;
  schema: Schema;
  example?: unknown;
}

/** The parameters, from the query or from the request body's schema, and the example request. */
function fieldsOf(v: OperationView): { fields: Field[]; example: Record<string, unknown>; files: string[] } {
  if (v.op.parameters) {
    const fields = v.op.parameters.map((p) => ({ ...p, required: Boolean(p.required), example: p.example }));
    return {
      fields,
      example: Object.fromEntries(fields.filter((f) => f.example !== undefined).map((f) => [f.name, f.example])),
      files: [],
    };
  }
  const content = v.op.requestBody?.content ?? {};
  const media = content['application/json'] ?? content['multipart/form-data'] ?? {};
  const multipart = content['multipart/form-data']?.schema;
  const resolve = (s?: Schema) => (s?.$ref ? v.schemas[s.$ref.split('/').pop()!] : s) ?? {};
  const body = resolve(multipart ?? media.schema);
  const example = (media.example ?? {}) as Record<string, unknown>;
  const fields = Object.entries(body.properties ?? {}).map(([name, schema]) => ({
    name,
    required: (body.required ?? []).includes(name),
    description: schema.description,
    schema,
    example: example[name],
  }));
  // A file field without a text form travels only as multipart.
  const files = content['application/json'] ? [] : fields.filter((f) => f.schema.format === 'binary').map((f) => f.name);
  return { fields, example, files };
}

function paramsTable(fields: Field[]): Safe {
  if (!fields.length) return html`<p class="small muted">No parameters.</p>`;
  return html`<div class="table-wrap"><table>
<thead><tr><th scope="col">Parameter</th><th scope="col">Type</th><th scope="col">Description</th></tr></thead>
<tbody>${fields.map(
    (f) => html`<tr><td><code>${f.name}</code>${f.required ? html` <span class="badge warn">required</span>` : ''}</td>
<td class="small">${typeWords(f.schema)}${f.schema.enum ? html`: ${f.schema.enum.map((e, i) => html`${i ? ', ' : ''}<code>${String(e)}</code>`)}` : ''}</td>
<td class="small">${prose(f.description ?? '')}${f.schema.default !== undefined ? html` Default <code>${String(f.schema.default)}</code>.` : ''}</td></tr>`,
  )}</tbody></table></div>`;
}

function input(path: string, f: Field, replay?: Record<string, string>): Safe {
  const id = fieldId(path, f.name);
  const label = html`<span><code>${f.name}</code>${f.required ? ' (required)' : ''}</span>`;
  // A replay fills what the call sent and leaves the rest empty (never the example in a field it did not send).
  const value = replay ? (replay[f.name] ?? '') : (f.example ?? '');
  if (f.schema.format === 'binary')
    return html`<label for="${id}">${label}<input id="${id}" name="${f.name}" type="file"${f.required ? ' required' : ''}></label>`;
  if (f.schema.enum)
    return html`<label for="${id}">${label}<select id="${id}" name="${f.name}">${f.required ? '' : html`<option value="">(not sent)</option>`}${f.schema.enum.map(
      (e) => html`<option${String(e) === String(value) ? ' selected' : ''}>${String(e)}</option>`,
    )}</select></label>`;
  if (f.schema.type === 'boolean')
    return html`<label for="${id}">${label}<select id="${id}" name="${f.name}"><option value="">(not sent)</option>${['true', 'false'].map(
      (b) => html`<option${String(value) === b ? ' selected' : ''}>${b}</option>`,
    )}</select></label>`;
  return html`<label for="${id}">${label}<input id="${id}" name="${f.name}" value="${String(value)}" autocomplete="off"${f.required ? ' required' : ''}></label>`;
}

/** The documented example answer of the 200, as indented JSON. */
function exampleAnswer(op: Operation): string | undefined {
  const example = op.responses['200']?.content?.['application/json']?.example;
  return example === undefined ? undefined : JSON.stringify(example, null, 2);
}

export function operationView(v: OperationView, category: string): Safe {
  const { op, method, path } = v;
  const { fields, example, files } = fieldsOf(v);
  const request = {
    method,
    url: `${v.publicUrl}${path}`,
    params: example,
    key: v.sampleKey,
    files,
    sdk: sdkNames(
      path,
      fields.map((f) => f.name),
    ),
  };
  const details = (op.description ?? '').replace(op.summary, '').replace(/^[.\s]+/, '');
  const answer = exampleAnswer(op);
  const errors = Object.keys(op.responses).filter((s) => s !== '200');
  const id = anchorOf(category, method, path);
  const headingId = `h-${fieldId(path, 'op')}`;
  const name = path.split('/').pop() ?? path;
  const more = html`${details ? html`<p class="small muted">${prose(details)}</p>` : ''}
<h3>Parameters</h3>
${paramsTable(fields)}
<h3>Request</h3>
<div class="samples" data-request="${JSON.stringify(request)}">${LANGUAGES.slice(0, 1).map(
    (l) =>
      html`<figure class="sample" data-lang="${l.id}"><figcaption>${l.label}</figcaption><pre tabindex="0"><code>${sample(l.id, request)}</code></pre></figure>`,
  )}</div>
<details class="try"${v.replay ? ' open' : ''}><summary>Try it</summary>
<form class="try-form" data-method="${method}" data-path="${path}" data-url="${v.publicUrl}${path}"${files.length ? ' data-multipart' : ''} novalidate>
${v.replay ? html`<p class="small muted">Filled in from a call of your request log: its keys and secrets are never kept, so give them again.</p>` : ''}
${fields.map((f) => input(path, f, v.replay))}
<p><button type="submit">Send request</button></p>
</form>
<div class="try-answer" hidden><p class="status" role="status"></p></div>
</details>
<h3>Answer</h3>
${answer ? html`<pre class="answer-example" tabindex="0"><code>${answer}</code></pre>` : html`<p class="small muted">The success envelope.</p>`}
<p class="small muted">Errors: ${errors.join(', ')} (<a href="/docs#errors">what each means</a>).</p>`;
  return html`<article class="op${v.folded ? ' folded' : ''}" id="${id}" aria-labelledby="${headingId}">
<h2 id="${headingId}">${op['x-title'] ?? op.summary} <span class="op-id">— ${name}</span></h2>
<p class="op-url"><span class="method ${method.toLowerCase()}">${method}</span> <code class="url" data-copy="${v.publicUrl}${path}">${path}</code></p>
<p>${op.summary}.</p>
${v.folded ? html`<details class="op-more"><summary>Parameters, samples and Try it</summary>${more}</details>` : more}
</article>`;
}
