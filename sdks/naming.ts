// The names both SDKs give an operation and its parameters, from its path alone, so that a call can be
// written without the document: /api/v1/downloaders/dl-d is `api.downloaders.dlD({ url })` in TypeScript
// and `api.downloaders.dl_d(url=...)` in Python. A path parameter `{id}` reads `by-id`.
// The generators (scripts/sdks/) and the reference's SDK samples (portal/shared/snippets.ts) both use these.

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
