// The names both SDKs give an operation and its parameters, from its path alone, so that a call can be
// written without the document: /api/v1/downloaders/dl-d is `api.downloaders.dlD({ url })` in TypeScript
// and `api.downloaders.dl_d(url=...)` in Python. A path parameter `{id}` reads `by-id`.
// The generators (scripts/sdks/) and sdkCalls() (the SDK calls the reference shows) both use these.

const PY_KEYWORDS = new Set(
  'False None True and as assert async await break class continue def del elif else except finally for from global if import in is lambda nonlocal not or pass raise return try while with yield'.split(
    ' ',
  ),
);

const camel = (words: string) => words.replace(/[-_]+([a-z0-9])/gi, (_, c: string) => c.toUpperCase());

/** The group and the method of an operation's path under /api/v1/, each as one kebab-case string. */
function partsOf(path: string): { group: string; method: string } {
  const segments = path
    .replace(/^\/api\/v1\//, '')
    .split('/')
    .filter(Boolean)
    .map((s) => (s.startsWith('{') ? `by-${s.slice(1, -1)}` : s));
  if (segments.length < 2) throw new Error(`${path}: not /api/v1/<group>/<name>`);
  return { group: segments[0], method: segments.slice(1).join('-') };
}

export function typescriptNames(path: string): { group: string; method: string } {
  const { group, method } = partsOf(path);
  return { group: camel(group), method: camel(method) };
}

/** A Python identifier: snake_case, with `_` after a keyword (`for` is `for_`). */
export function pythonName(name: string): string {
  const snake = name
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1_$2')
    .replace(/[^A-Za-z0-9_]+/g, '_')
    .toLowerCase();
  const safe = /^[0-9]/.test(snake) ? `_${snake}` : snake;
  return PY_KEYWORDS.has(safe) ? `${safe}_` : safe;
}

export function pythonNames(path: string): { group: string; method: string } {
  const { group, method } = partsOf(path);
  return { group: pythonName(group), method: pythonName(method) };
}

const isIdentifier = (name: string) => /^[A-Za-z_$][A-Za-z0-9_$]*$/.test(name);

function pythonValue(value: unknown): string {
  if (value === null || value === undefined) return 'None';
  if (value === true) return 'True';
  if (value === false) return 'False';
  if (typeof value === 'number' || typeof value === 'string') return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(pythonValue).join(', ')}]`;
  return `{${Object.entries(value as Record<string, unknown>)
    .map(([k, v]) => `${JSON.stringify(k)}: ${pythonValue(v)}`)
    .join(', ')}}`;
}

/**
 * The SDK calls of an endpoint with the given parameters, as code: `endpoint` is its id under /api/v1/
 * (`downloaders/dl-d`) or its path. For the reference's samples beside the raw HTTP request.
 */
export function sdkCalls(endpoint: string, params: Record<string, unknown> = {}): { typescript: string; python: string } {
  const path = endpoint.startsWith('/') ? endpoint : `/api/v1/${endpoint}`;
  const ts = typescriptNames(path);
  const py = pythonNames(path);
  const entries = Object.entries(params).filter(([, v]) => v !== undefined);
  const tsArgs = entries.length
    ? `{ ${entries.map(([k, v]) => `${isIdentifier(k) ? k : JSON.stringify(k)}: ${JSON.stringify(v)}`).join(', ')} }`
    : '';
  const pyArgs = entries.map(([k, v]) => `${pythonName(k)}=${pythonValue(v)}`).join(', ');
  return {
    typescript: [
      "import { createClient } from 'unified-utility-api';",
      '',
      'const api = createClient(); // the key from UUA_API_KEY, or createClient({ apiKey })',
      `const answer = await api.${ts.group}.${ts.method}(${tsArgs});`,
      'console.log(answer.data);',
    ].join('\n'),
    python: [
      'from unified_utility_api import Client',
      '',
      'api = Client()  # the key from UUA_API_KEY, or Client(api_key=...)',
      `answer = api.${py.group}.${py.method}(${pyArgs})`,
      'print(answer["data"])',
    ].join('\n'),
  };
}
