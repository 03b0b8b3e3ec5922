// Code samples of one request in the languages the pages offer (curl, Node, Python, PHP, Go, the SDKs), for the
// reference (every operation) and the key page (a first call). The samples are written by
// portal/static/snippets.js, which the reference's pages also load so Try it writes the request it sent in
// the same words: it is run here once, in a context of its own, and its functions typed.
import fs from 'node:fs';
import path from 'node:path';
import vm from 'node:vm';
import { STATIC_DIR } from './static-dir.js';
import { pythonName, pythonNames, typescriptNames } from '../../sdks/naming.js';

export interface SampleRequest {
  method: 'GET' | 'POST';
  /** The full URL without the query (PUBLIC_URL + path). */
  url: string;
  /** GET: the query parameters; POST: the JSON body's fields (a file field's value: the local file's name). */
  params: Record<string, unknown>;
  /** The key as it appears in the sample: a real key, or a placeholder such as $UUA_API_KEY. */
  key: string;
  /** POST only: fields that must be uploaded as files (multipart/form-data) rather than sent as JSON. */
  files?: string[];
  /** The operation in the SDKs (sdkNames): the SDK samples call it; without it they are the raw request's. */
  sdk?: SdkNames;
}

/** What the SDKs call an operation: `group.method` in each, and each parameter's Python name. */
export interface SdkNames {
  typescript: string;
  python: string;
  pythonParams: Record<string, string>;
}

/** The SDK names of the operation at `path` with these parameters (the rules of sdks/naming.ts). */
export function sdkNames(path: string, params: readonly string[]): SdkNames {
  const ts = typescriptNames(path);
  const py = pythonNames(path);
  return {
    typescript: `${ts.group}.${ts.method}`,
    python: `${py.group}.${py.method}`,
    pythonParams: Object.fromEntries(params.map((p) => [p, pythonName(p)])),
  };
}

interface Snippets {
  languages: Array<{ id: string; label: string }>;
  sample(lang: string, r: SampleRequest): string;
}

export const SNIPPETS_URL = '/portal/static/snippets.js';

const context = vm.createContext({ URL, URLSearchParams });
vm.runInContext(fs.readFileSync(path.join(STATIC_DIR, 'snippets.js'), 'utf8'), context, { filename: 'snippets.js' });
const snippets = (context as { uuaSnippets: Snippets }).uuaSnippets;

/** The languages, in the order the pages show them. */
export const LANGUAGES: ReadonlyArray<{ id: string; label: string }> = snippets.languages;

/** The request in one language. A placeholder key starting with $ reads the environment variable it names. */
export const sample = (lang: string, r: SampleRequest): string => snippets.sample(lang, r);
