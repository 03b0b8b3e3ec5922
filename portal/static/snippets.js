// Code samples of one request, in each language of LANGUAGES. One file for both sides, so they write the
// same code: the server runs it (portal/shared/snippets.ts) for the reference's and the key page's samples,
// and the reference's pages load it so Try it can show the request it just sent, with the values typed.
// A classic script with no import or export (the pages load scripts as files, under CSP default-src 'self'):
// it leaves its functions on globalThis.uuaSnippets. The key always travels in the X-API-Key header, never in
// the URL (URLs end up in logs and histories). Another language is one more entry of LANGUAGES. The SDKs'
// samples call the method the server names in r.sdk (sdks/naming.ts), and are the raw request's without it.
(() => {
  // --- what every language needs -------------------------------------------------------------------------
  const query = (params) => new URLSearchParams(Object.entries(params).map(([k, v]) => [k, String(v)])).toString();
  /** A key written as "$NAME" is read from the environment variable NAME. */
  const envOf = (r) => (r.key.startsWith('$') ? r.key.slice(1) : undefined);
  const fullUrl = (r) => (r.method === 'GET' && Object.keys(r.params).length ? `${r.url}?${query(r.params)}` : r.url);
  /** The file fields of a multipart upload, each with the local file it is read from, and the other fields. */
  const partsOf = (r) => {
    const files = r.files ?? [];
    const name = (f) => (typeof r.params[f] === 'string' && r.params[f] ? r.params[f] : 'example.txt');
    return {
      files: files.map((f) => [f, name(f)]),
      fields: Object.entries(r.params).filter(([k]) => !files.includes(k)),
    };
  };
  const multipart = (r) => r.method === 'POST' && Boolean(r.files?.length);
  const indent = (text, by) => text.replace(/\n/g, `\n${by}`);

  // --- curl ------------------------------------------------------------------------------------------------
  /** A shell word in single quotes (a quote inside closes, escapes and reopens). */
  const shell = (s) => `'${String(s).replace(/'/g, `'\\''`)}'`;
  function curl(r) {
    const env = envOf(r);
    const key = env ? `"X-API-Key: $${env}"` : shell(`X-API-Key: ${r.key}`);
    if (multipart(r)) {
      const { files, fields } = partsOf(r);
      const parts = [
        ...files.map(([f, file]) => `-F ${shell(`${f}=@${file}`)}`),
        ...fields.map(([k, v]) => `-F ${shell(`${k}=${String(v)}`)}`),
      ];
      return `curl -H ${key} \\\n  ${parts.join(' \\\n  ')} \\\n  ${shell(r.url)}`;
    }
    if (r.method === 'GET') return `curl -H ${key} \\\n  ${shell(fullUrl(r))}`;
    return `curl -X POST -H ${key} \\\n  -H 'Content-Type: application/json' \\\n  -d ${shell(JSON.stringify(r.params))} \\\n  ${shell(r.url)}`;
  }

  // --- Node (fetch, built in since Node 18) -----------------------------------------------------------------
  function node(r) {
    const env = envOf(r);
    const key = env ? `process.env.${env}` : JSON.stringify(r.key);
    if (multipart(r)) {
      const { files, fields } = partsOf(r);
      return [
        "import { openAsBlob } from 'node:fs';",
        '',
        'const form = new FormData();',
        ...files.map(
          ([f, file]) => `form.append(${JSON.stringify(f)}, await openAsBlob(${JSON.stringify(file)}), ${JSON.stringify(file)});`,
        ),
        ...fields.map(([k, v]) => `form.append(${JSON.stringify(k)}, ${JSON.stringify(String(v))});`),
        `const res = await fetch(${JSON.stringify(r.url)}, { method: 'POST', headers: { 'X-API-Key': ${key} }, body: form });`,
        'const answer = await res.json();',
        'console.log(res.status, answer.data);',
      ].join('\n');
    }
    const body = r.method === 'POST' ? `,\n  body: JSON.stringify(${indent(JSON.stringify(r.params, null, 2), '  ')})` : '';
    const type = r.method === 'POST' ? `, 'Content-Type': 'application/json'` : '';
    return `const res = await fetch(${JSON.stringify(fullUrl(r))}, {\n  method: '${r.method}',\n  headers: { 'X-API-Key': ${key}${type} }${body},\n});\nconst answer = await res.json();\nconsole.log(res.status, answer.data);`;
  }

  // --- Python (requests) -----------------------------------------------------------------------------------
  /** A JSON value written as a Python literal (True, False, None; strings and numbers as JSON has them). */
  function py(v, pad = '') {
    if (v === null || v === undefined) return 'None';
    if (typeof v === 'boolean') return v ? 'True' : 'False';
    const inner = `${pad}    `;
    if (Array.isArray(v)) return v.length ? `[\n${v.map((x) => inner + py(x, inner)).join(',\n')},\n${pad}]` : '[]';
    if (typeof v === 'object') {
      const entries = Object.entries(v);
      return entries.length ? `{\n${entries.map(([k, x]) => `${inner}${JSON.stringify(k)}: ${py(x, inner)}`).join(',\n')},\n${pad}}` : '{}';
    }
    return JSON.stringify(v);
  }
  function python(r) {
    const env = envOf(r);
    const key = env ? `os.environ[${JSON.stringify(env)}]` : JSON.stringify(r.key);
    const head = `${env ? 'import os\n' : ''}import requests\n\n`;
    const tail = `\n)\nprint(res.status_code, res.json()["data"])`;
    if (multipart(r)) {
      const { files, fields } = partsOf(r);
      const data = fields.length ? `\n    data=${py(Object.fromEntries(fields), '    ')},` : '';
      const opened = files.map(([f, file]) => `${JSON.stringify(f)}: open(${JSON.stringify(file)}, "rb")`).join(', ');
      return `${head}res = requests.post(\n    ${JSON.stringify(r.url)},\n    headers={"X-API-Key": ${key}},\n    files={${opened}},${data}${tail}`;
    }
    const hasParams = Object.keys(r.params).length > 0;
    const args = r.method === 'GET' ? (hasParams ? `,\n    params=${py(r.params, '    ')}` : '') : `,\n    json=${py(r.params, '    ')}`;
    return `${head}res = requests.${r.method.toLowerCase()}(\n    ${JSON.stringify(r.url)},\n    headers={"X-API-Key": ${key}}${args},${tail}`;
  }

  // --- PHP (its curl extension) ----------------------------------------------------------------------------
  const phpString = (s) => `'${String(s).replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
  /** A JSON value written as a PHP literal (arrays for lists and objects alike, as json_encode reads them). */
  function phpValue(v, pad = '') {
    if (v === null || v === undefined) return 'null';
    if (typeof v === 'boolean' || typeof v === 'number') return String(v);
    if (typeof v === 'string') return phpString(v);
    const inner = `${pad}    `;
    const items = Array.isArray(v)
      ? v.map((x) => phpValue(x, inner))
      : Object.entries(v).map(([k, x]) => `${phpString(k)} => ${phpValue(x, inner)}`);
    return items.length ? `[\n${items.map((i) => inner + i).join(',\n')},\n${pad}]` : '[]';
  }
  function php(r) {
    const env = envOf(r);
    const key = env ? `'X-API-Key: ' . getenv('${env}')` : phpString(`X-API-Key: ${r.key}`);
    const headers = [key];
    let url = phpString(r.url);
    let post = '';
    if (multipart(r)) {
      const { files, fields } = partsOf(r);
      const parts = [
        ...files.map(([f, file]) => `${phpString(f)} => new CURLFile(${phpString(file)})`),
        ...fields.map(([k, v]) => `${phpString(k)} => ${phpString(String(v))}`),
      ];
      post = `    CURLOPT_POSTFIELDS => [\n${parts.map((p) => `        ${p}`).join(',\n')},\n    ],\n`;
    } else if (r.method === 'POST') {
      headers.push(`'Content-Type: application/json'`);
      post = `    CURLOPT_POSTFIELDS => json_encode(${phpValue(r.params, '    ')}),\n`;
    } else if (Object.keys(r.params).length) {
      url = `${url} . '?' . http_build_query(${phpValue(r.params)})`;
    }
    return [
      '<?php',
      `$ch = curl_init(${url});`,
      'curl_setopt_array($ch, [',
      `    CURLOPT_HTTPHEADER => [${headers.join(', ')}],`,
      `${post}    CURLOPT_RETURNTRANSFER => true,`,
      ']);',
      '$answer = json_decode(curl_exec($ch), true);',
      "echo curl_getinfo($ch, CURLINFO_RESPONSE_CODE), ' ', json_encode($answer['data']), PHP_EOL;",
    ].join('\n');
  }

  // --- Go (net/http) -----------------------------------------------------------------------------------------
  /** A Go string literal: JSON's escapes (\", \\, \n, \uXXXX …) are all Go's too. */
  const goString = (s) => JSON.stringify(String(s));
  function go(r) {
    const env = envOf(r);
    const key = env ? `os.Getenv(${goString(env)})` : goString(r.key);
    const imports = new Set(['fmt', 'io', 'net/http']);
    if (env) imports.add('os');
    let setup = '';
    let body = 'nil';
    let type = '';
    if (multipart(r)) {
      const { files, fields } = partsOf(r);
      ['bytes', 'mime/multipart', 'os'].forEach((i) => imports.add(i));
      setup =
        '\tvar body bytes.Buffer\n\tform := multipart.NewWriter(&body)\n' +
        files
          .map(
            ([f, file], i) =>
              `\tfile${i}, err := os.ReadFile(${goString(file)})\n\tif err != nil {\n\t\tpanic(err)\n\t}\n\tpart${i}, _ := form.CreateFormFile(${goString(f)}, ${goString(file)})\n\tpart${i}.Write(file${i})\n`,
          )
          .join('') +
        fields.map(([k, v]) => `\tform.WriteField(${goString(k)}, ${goString(v)})\n`).join('') +
        '\tform.Close()\n';
      body = '&body';
      type = '\treq.Header.Set("Content-Type", form.FormDataContentType())\n';
    } else if (r.method === 'POST') {
      imports.add('strings');
      body = `strings.NewReader(${goString(JSON.stringify(r.params))})`;
      type = '\treq.Header.Set("Content-Type", "application/json")\n';
    }
    return [
      'package main',
      '',
      `import (\n${[...imports]
        .sort()
        .map((i) => `\t"${i}"`)
        .join('\n')}\n)`,
      '',
      'func main() {',
      `${setup}\treq, err := http.NewRequest(${goString(r.method)}, ${goString(fullUrl(r))}, ${body})`,
      '\tif err != nil {\n\t\tpanic(err)\n\t}',
      `\treq.Header.Set("X-API-Key", ${key})\n${type}\tres, err := http.DefaultClient.Do(req)`,
      '\tif err != nil {\n\t\tpanic(err)\n\t}',
      '\tdefer res.Body.Close()',
      '\tanswer, _ := io.ReadAll(res.Body)',
      '\tfmt.Println(res.StatusCode, string(answer))',
      '}',
    ].join('\n');
  }

  // --- the SDKs (sdks/): the call by the names the server gives (r.sdk, from sdks/naming.ts) ---------------------
  /** The client's options: the base URL of this server, and the key (read by the SDK from UUA_API_KEY). */
  const origin = (r) => new URL(r.url).origin;
  function sdkTypescript(r) {
    if (!r.sdk) return node(r);
    const env = envOf(r);
    const { files, fields } = partsOf(r);
    const args = [
      ...fields.map(([k, v]) => `${/^[A-Za-z_$][\w$]*$/.test(k) ? k : JSON.stringify(k)}: ${JSON.stringify(v)}`),
      ...files.map(([f, file]) => `${f}: await openAsBlob(${JSON.stringify(file)})`),
    ];
    const options = [
      `baseUrl: ${JSON.stringify(origin(r))}`,
      ...(env === 'UUA_API_KEY' ? [] : [`apiKey: ${env ? `process.env.${env}` : JSON.stringify(r.key)}`]),
    ];
    return [
      ...(files.length ? ["import { openAsBlob } from 'node:fs';"] : []),
      "import { createClient } from 'unified-utility-api';",
      '',
      `const api = createClient({ ${options.join(', ')} });${env === 'UUA_API_KEY' ? ' // the key from UUA_API_KEY' : ''}`,
      `const answer = await api.${r.sdk.typescript}(${args.length ? `{ ${args.join(', ')} }` : ''});`,
      'console.log(answer.data);',
    ].join('\n');
  }
  function sdkPython(r) {
    if (!r.sdk) return python(r);
    const env = envOf(r);
    const { files, fields } = partsOf(r);
    const name = (k) => r.sdk.pythonParams[k] ?? k;
    const args = [
      ...fields.map(([k, v]) => `${name(k)}=${py(v)}`),
      ...files.map(([f, file]) => `${name(f)}=open(${JSON.stringify(file)}, "rb")`),
    ];
    const options = [
      ...(env === 'UUA_API_KEY' ? [] : [env ? `os.environ[${JSON.stringify(env)}]` : JSON.stringify(r.key)]),
      `base_url=${JSON.stringify(origin(r))}`,
    ];
    return [
      ...(env && env !== 'UUA_API_KEY' ? ['import os'] : []),
      'from unified_utility_api import Client',
      '',
      `api = Client(${options.join(', ')})${env === 'UUA_API_KEY' ? '  # the key from UUA_API_KEY' : ''}`,
      `answer = api.${r.sdk.python}(${args.join(', ')})`,
      'print(answer["data"])',
    ].join('\n');
  }

  /** The languages, in the order the pages offer them; `id` is what a visitor's choice is remembered by. */
  const LANGUAGES = [
    { id: 'curl', label: 'curl', write: curl },
    { id: 'javascript', label: 'Node (fetch)', write: node },
    { id: 'python', label: 'Python', write: python },
    { id: 'php', label: 'PHP', write: php },
    { id: 'go', label: 'Go', write: go },
    { id: 'sdk-typescript', label: 'TypeScript SDK', write: sdkTypescript },
    { id: 'sdk-python', label: 'Python SDK', write: sdkPython },
  ];

  globalThis.uuaSnippets = {
    languages: LANGUAGES.map(({ id, label }) => ({ id, label })),
    /** The request in one language (an unknown id: curl's). */
    sample(lang, r) {
      return (LANGUAGES.find((l) => l.id === lang) ?? LANGUAGES[0]).write(r);
    },
  };
})();
