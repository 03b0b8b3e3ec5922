// Code samples of one request in the three languages the pages name: curl, JavaScript (fetch) and Python
// (requests). The key goes in the X-API-Key header, never in the URL (URLs end up in logs and histories).
// Used by the reference (every operation) and the key page (a first call).

export interface SampleRequest {
  method: 'GET' | 'POST';
  /** The full URL without the query (PUBLIC_URL + path). */
  url: string;
  /** GET: the query parameters; POST: the JSON body's fields. */
  params: Record<string, unknown>;
  /** The key as it appears in the sample: a real key, or a placeholder such as $UUA_API_KEY. */
  key: string;
  /** POST only: fields that must be uploaded as files (multipart/form-data) rather than sent as JSON. */
  files?: string[];
}

export const LANGUAGES = [
  { id: 'curl', label: 'curl' },
  { id: 'javascript', label: 'JavaScript' },
  { id: 'python', label: 'Python' },
] as const;

export type Language = (typeof LANGUAGES)[number]['id'];

const query = (params: Record<string, unknown>) =>
  new URLSearchParams(Object.entries(params).map(([k, v]): [string, string] => [k, String(v)])).toString();
/** A shell word in single quotes (a quote inside closes, escapes and reopens). */
const shell = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
const indent = (text: string, by: string) => text.replace(/\n/g, `\n${by}`);
/** A JSON value written as a Python literal (True, False, None; strings and numbers as JSON has them). */
function python(v: unknown, pad = ''): string {
  if (v === null || v === undefined) return 'None';
  if (typeof v === 'boolean') return v ? 'True' : 'False';
  const inner = `${pad}    `;
  if (Array.isArray(v)) return v.length ? `[\n${v.map((x) => inner + python(x, inner)).join(',\n')},\n${pad}]` : '[]';
  if (typeof v === 'object') {
    const entries = Object.entries(v);
    return entries.length
      ? `{\n${entries.map(([k, x]) => `${inner}${JSON.stringify(k)}: ${python(x, inner)}`).join(',\n')},\n${pad}}`
      : '{}';
  }
  return JSON.stringify(v);
}

/** The request in one language. A placeholder key starting with $ reads the environment variable it names. */
export function sample(lang: Language, r: SampleRequest): string {
  if (r.method === 'POST' && r.files?.length) return upload(lang, r);
  const env = r.key.startsWith('$') ? r.key.slice(1) : undefined;
  const hasParams = Object.keys(r.params).length > 0;
  const full = r.method === 'GET' && hasParams ? `${r.url}?${query(r.params)}` : r.url;
  if (lang === 'curl') {
    const key = env ? `"X-API-Key: $${env}"` : shell(`X-API-Key: ${r.key}`);
    if (r.method === 'GET') return `curl -H ${key} \\\n  ${shell(full)}`;
    return `curl -X POST -H ${key} \\\n  -H 'Content-Type: application/json' \\\n  -d ${shell(JSON.stringify(r.params))} \\\n  ${shell(r.url)}`;
  }
  if (lang === 'javascript') {
    const key = env ? `process.env.${env}` : JSON.stringify(r.key);
    const body = r.method === 'POST' ? `,\n  body: JSON.stringify(${indent(JSON.stringify(r.params, null, 2), '  ')})` : '';
    const type = r.method === 'POST' ? `, 'Content-Type': 'application/json'` : '';
    return `const res = await fetch(${JSON.stringify(full)}, {\n  method: '${r.method}',\n  headers: { 'X-API-Key': ${key}${type} }${body},\n});\nconst answer = await res.json();\nconsole.log(res.status, answer.data);`;
  }
  const key = env ? `os.environ[${JSON.stringify(env)}]` : JSON.stringify(r.key);
  const args =
    r.method === 'GET' ? `${hasParams ? `,\n    params=${python(r.params, '    ')}` : ''}` : `,\n    json=${python(r.params, '    ')}`;
  return `${env ? 'import os\n' : ''}import requests\n\nres = requests.${r.method.toLowerCase()}(\n    ${JSON.stringify(r.url)},\n    headers={"X-API-Key": ${key}}${args},\n)\nprint(res.status_code, res.json()["data"])`;
}

/** A POST whose files travel as multipart/form-data: each file field from a local file of that name. */
function upload(lang: Language, r: SampleRequest): string {
  const env = r.key.startsWith('$') ? r.key.slice(1) : undefined;
  const files = r.files ?? [];
  const fields = Object.entries(r.params).filter(([k]) => !files.includes(k));
  if (lang === 'curl') {
    const key = env ? `"X-API-Key: $${env}"` : shell(`X-API-Key: ${r.key}`);
    const parts = [...files.map((f) => `-F ${shell(`${f}=@example.txt`)}`), ...fields.map(([k, v]) => `-F ${shell(`${k}=${String(v)}`)}`)];
    return `curl -H ${key} \\\n  ${parts.join(' \\\n  ')} \\\n  ${shell(r.url)}`;
  }
  if (lang === 'javascript') {
    const key = env ? `process.env.${env}` : JSON.stringify(r.key);
    const lines = [
      "import { openAsBlob } from 'node:fs';",
      '',
      'const form = new FormData();',
      ...files.map((f) => `form.append(${JSON.stringify(f)}, await openAsBlob('example.txt'), 'example.txt');`),
      ...fields.map(([k, v]) => `form.append(${JSON.stringify(k)}, ${JSON.stringify(String(v))});`),
      `const res = await fetch(${JSON.stringify(r.url)}, { method: 'POST', headers: { 'X-API-Key': ${key} }, body: form });`,
      'const answer = await res.json();',
      'console.log(res.status, answer.data);',
    ];
    return lines.join('\n');
  }
  const key = env ? `os.environ[${JSON.stringify(env)}]` : JSON.stringify(r.key);
  const data = fields.length ? `\n    data=${python(Object.fromEntries(fields), '    ')},` : '';
  return `${env ? 'import os\n' : ''}import requests\n\nres = requests.post(\n    ${JSON.stringify(r.url)},\n    headers={"X-API-Key": ${key}},\n    files={${files.map((f) => `${JSON.stringify(f)}: open("example.txt", "rb")`).join(', ')}},${data}\n)\nprint(res.status_code, res.json()["data"])`;
}
