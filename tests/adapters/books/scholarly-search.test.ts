// books/scholarly-search against a loopback Crossref: rows and select sent, titles and container titles
// unwrapped from arrays, dates from date-parts, organisation authors; 400 validation failures; errors,
// cache and coalescing.
import { upstreamSuite } from '../../helpers/upstream-suite.js';
import { expectAnswer, expectMatchesSchema } from '../../helpers/schema.js';
import { expectFailure } from '../../helpers/upstream-failures.js';
import { shortTimeoutCtx } from '../../helpers/short-timeout.js';
import scholarlySearch from '../../../adapters/books/scholarly-search.js';

const s = upstreamSuite({
  endpoint: 'books/scholarly-search',
  upstreams: {
    crossref: {
      routes: { 'GET /works': (r) => ({ json: s.fixture('works.json'), delayMs: r.query.get('query') === 'slow' ? 150 : 0 }) },
    },
  },
});
const { get } = s;

test('a search: arrays unwrapped, dates joined, authors named', async () => {
  const res = await get({ q: 'graph neural network' });
  expectAnswer(res, 'crossref');
  expect(res.body.data).toEqual({
    query: 'graph neural network',
    total: 12873,
    items: [
      {
        doi: '10.1109/tnn.2008.2005605',
        title: 'The Graph Neural Network Model',
        authors: ['F. Scarselli', 'M. Gori'],
        issued: '2009-01',
        container_title: 'IEEE Transactions on Neural Networks',
        type: 'journal-article',
        url: 'https://doi.org/10.1109/tnn.2008.2005605',
      },
      {
        doi: '10.5555/org-report',
        title: null,
        authors: ['Example Consortium'],
        issued: null,
        container_title: null,
        type: 'report',
        url: 'https://doi.org/10.5555/org-report',
      },
    ],
  });
  expectMatchesSchema('books/scholarly-search', res.body.data);
  const q = Object.fromEntries(s.fake.calls[0].query);
  expect(q).toEqual({ query: 'graph neural network', rows: '20', select: 'DOI,title,author,issued,container-title,type,URL' });
});

test('q is required and bounded', async () => {
  expect((await get({})).body.error).toBe('Missing required parameter: q');
  expect((await get({ q: 'x'.repeat(301) })).body.error).toBe('Invalid value for q: must be at most 300 characters');
  expect(s.fake.calls).toHaveLength(0);
});

describe('upstream failures', () => {
  beforeEach(() => s.freshApp());
  s.failureTests({ q: 'transformers' });

  test('a validation failure (400) → 400', async () => {
    s.failWith = {
      status: 400,
      json: { status: 'failed', 'message-type': 'validation-failure', message: [{ type: 'query-parameter-not-allowed' }] },
    };
    expectFailure(await get({ q: 'transformers' }), { status: 400, code: 'bad_input' });
  });

  test('status other than ok, or no items → 502', async () => {
    s.failWith = { json: { status: 'error', message: {} } };
    expectFailure(await get({ q: 'transformers' }), { status: 502, code: 'upstream_changed' });
  });

  test('slower than the upstream timeout → 504', async () => {
    s.failWith = { json: s.fixture('works.json'), delayMs: 2000 };
    await expect(scholarlySearch({ q: 'transformers' }, shortTimeoutCtx('crossref', s.fake.url))).rejects.toMatchObject({ status: 504 });
  });
});

s.cacheTests({ hit: { q: 'attention' }, coalesced: { q: 'slow' } });
