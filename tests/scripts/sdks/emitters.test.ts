// The SDK emitters on a small document of their own: names from paths, Python's keywords and snake_case,
// where each parameter goes, raw media methods, and Python that parses; and the reference's SDK samples, the calls the
// reference shows.
import { execFile } from 'node:child_process';
import { sdkOperations, type OpenApiDoc } from '../../../scripts/sdks/operations.js';
import { pythonEndpointsFile } from '../../../scripts/sdks/python.js';
import { endpointsFile } from '../../../scripts/sdks/typescript.js';
import { pythonName, typescriptNames } from '../../../sdks/naming.js';
import { sample, sdkNames } from '../../../portal/shared/snippets.js';

const DOC: OpenApiDoc = {
  info: { version: '2.0.0', title: 'x' },
  servers: [{ url: 'http://localhost:3000' }],
  paths: {
    '/api/v1/downloaders/dl-d': {
      get: {
        operationId: 'downloadersDlD',
        summary: 'Short-video """download""" \\ here',
        parameters: [
          { name: 'url', in: 'query', required: true, schema: { type: 'string' } },
          { name: 'maxBytes', in: 'query', schema: { type: 'integer' } },
          { name: 'for', in: 'query', schema: { enum: ['telegram', 'whatsapp'] } },
        ],
        responses: { '200': { content: { 'application/json': {} } } },
      },
    },
    '/api/v1/tts/generate': {
      post: {
        operationId: 'ttsGenerate',
        summary: 'Speech',
        requestBody: { content: { 'application/json': { schema: { $ref: '#/components/schemas/Tts' } } } },
        responses: { '200': { content: { 'application/json': {}, 'audio/mpeg': {} } } },
      },
    },
    '/api/v1/account/requests/{id}': {
      get: {
        operationId: 'accountRequest',
        summary: 'One request',
        parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }],
        responses: { '200': { content: { 'application/json': {} } } },
      },
    },
    '/api/v1/finance/p2p': {
      get: { operationId: 'financeP2p', summary: 'Listings', responses: { '200': { content: { 'application/json': {} } } } },
    },
  },
  components: {
    schemas: {
      Tts: {
        type: 'object',
        required: ['text'],
        properties: { text: { type: 'string', description: 'What to say.' }, isNsfw: { type: 'boolean' } },
      },
    },
  },
};

const ops = sdkOperations(DOC);
const FUNCTIONS = new Map([
  ['GET /api/v1/downloaders/dl-d', 'downloadersDlD'],
  ['POST /api/v1/tts/generate', 'ttsGenerate'],
  ['GET /api/v1/account/requests/{id}', 'accountRequest'],
  ['GET /api/v1/finance/p2p', 'financeP2P'],
]);

test('names come from the path: kebab-case to camelCase and snake_case, a path parameter read as by-<name>', () => {
  expect(ops.map((o) => [o.ts, o.py])).toEqual([
    [
      { group: 'downloaders', method: 'dlD' },
      { group: 'downloaders', method: 'dl_d' },
    ],
    [
      { group: 'tts', method: 'generate' },
      { group: 'tts', method: 'generate' },
    ],
    [
      { group: 'account', method: 'requestsById' },
      { group: 'account', method: 'requests_by_id' },
    ],
    [
      { group: 'finance', method: 'p2p' },
      { group: 'finance', method: 'p2p' },
    ],
  ]);
  expect(typescriptNames('/api/v1/gen-models/chat-01')).toEqual({ group: 'genModels', method: 'chat01' });
  expect(['maxBytes', 'for', 'from', 'animedbID', 'segment_no', 'isNsfw', 'class'].map(pythonName)).toEqual([
    'max_bytes',
    'for_',
    'from_',
    'animedb_id',
    'segment_no',
    'is_nsfw',
    'class_',
  ]);
});

test('two parameters or two operations that would share a name are refused', () => {
  const clash = structuredClone(DOC);
  clash.paths['/api/v1/downloaders/dl-d'].get.parameters!.push({ name: 'max_bytes', in: 'query', schema: { type: 'integer' } });
  expect(() => sdkOperations(clash)).toThrow('two parameters are max_bytes in Python');
  const twice = structuredClone(DOC);
  twice.paths['/api/v1/downloaders/dl_d'] = twice.paths['/api/v1/downloaders/dl-d'];
  expect(() => sdkOperations(twice)).toThrow('another operation is also downloaders.dlD');
});

test('the TypeScript grouping calls each generated function by its generated name, with the parameters’ places', () => {
  const text = endpointsFile(ops, FUNCTIONS);
  expect(text).toContain("dlD: (params: NonNullable<t.DownloadersDlDData['query']>, options?: CallOptions) =>");
  expect(text).toContain(
    'call<Exclude<t.TtsGenerateResponses[200], Blob | File>>(sdk.ttsGenerate, params, { body: true, path: [] }, options)',
  );
  expect(text).toContain("generateMedia: (params: t.TtsGenerateData['body'], options?: MediaOptions<'audio/mpeg'>) =>");
  expect(text).toContain("requestsById: (params: t.AccountRequestData['path'], options?: CallOptions) =>");
  expect(text).toContain("{ body: false, path: ['id'] }");
  // No parameters: no params argument; the generator's own casing of the function.
  expect(text).toContain('p2p: (options?: CallOptions) =>');
  expect(text).toContain('sdk.financeP2P, {}');
  expect(() => endpointsFile(ops, new Map())).toThrow('GET /api/v1/downloaders/dl-d: no generated function');
});

test('the Python module parses, with required keyword arguments first and the wire names kept', async () => {
  const text = pythonEndpointsFile(ops);
  expect(text).toContain('    def dl_d(self, *, url: str, max_bytes: Optional[int] = None, for_: Optional[str] = None) -> Dict[str, Any]:');
  expect(text).toContain('{"url": url, "maxBytes": max_bytes, "for": for_}, None, ()');
  expect(text).toContain('def generate(self, *, text: str, is_nsfw: Optional[bool] = None)');
  expect(text).toContain(
    'def generate_media(self, *, text: str, is_nsfw: Optional[bool] = None, accept: str = "audio/mpeg") -> MediaAnswer:',
  );
  expect(text).toContain('"GET", "/api/v1/account/requests/{id}", {"id": id}, None, ("id", )');
  expect(text).toContain('    def p2p(self) -> Dict[str, Any]:');
  expect(text).toContain('        self.downloaders = Downloaders(transport)');
  // The summary's quotes and backslash stay inside the docstring.
  const parsed = await new Promise<string>((resolve, reject) => {
    const child = execFile(
      'python3',
      [
        '-c',
        'import ast, sys; tree = ast.parse(sys.stdin.read()); cls = [n for n in tree.body if getattr(n, "name", "") == "Downloaders"][0]; fn = [n for n in cls.body if getattr(n, "name", "") == "dl_d"][0]; print(ast.get_docstring(fn).splitlines()[0])',
      ],
      (err, out) => (err ? reject(new Error(err.message)) : resolve(out)),
    );
    child.stdin!.end(text);
  });
  expect(parsed.trim()).toBe('Short-video """download""" \\ here');
});

test("the reference's SDK samples call each SDK's method by its names, values written in each language", () => {
  const params = { url: 'https://www.tiktok.com/@a/video/1', for: 'telegram', maxBytes: 5_000_000, isNsfw: false };
  const of = (path: string, p: Record<string, unknown>, key = 'uua_k') => ({
    method: 'GET' as const,
    url: `https://api.example${path}`,
    params: p,
    key,
    sdk: sdkNames(path, Object.keys(p)),
  });
  const dl = of('/api/v1/downloaders/dl-d', params);
  expect(sample('sdk-typescript', dl)).toContain(
    'const answer = await api.downloaders.dlD({ url: "https://www.tiktok.com/@a/video/1", for: "telegram", maxBytes: 5000000, isNsfw: false });',
  );
  expect(sample('sdk-typescript', dl)).toContain('createClient({ baseUrl: "https://api.example", apiKey: "uua_k" })');
  expect(sample('sdk-python', dl)).toContain(
    'answer = api.downloaders.dl_d(url="https://www.tiktok.com/@a/video/1", for_="telegram", max_bytes=5000000, is_nsfw=False)',
  );
  expect(sample('sdk-python', dl)).toContain('api = Client("uua_k", base_url="https://api.example")');
  // The key from UUA_API_KEY, as the SDKs read it by themselves.
  expect(sample('sdk-python', of('/api/v1/account/usage', {}, '$UUA_API_KEY'))).toContain(
    'api = Client(base_url="https://api.example")  # the key from UUA_API_KEY\nanswer = api.account.usage()',
  );
  expect(sample('sdk-typescript', of('/api/v1/account/usage', {}, '$UUA_API_KEY'))).toContain('await api.account.usage();');
  expect(sample('sdk-typescript', of('/api/v1/tools/x', { 'a-b': 1 }))).toContain('{ "a-b": 1 }');
  // Without the SDK's names (the key page's samples): the raw request's.
  expect(sample('sdk-python', { ...dl, sdk: undefined })).toContain('import requests');
});
