// books/bible-b against a loopback bible-api.com. The reference is read locally: bad ones are 400s that
// never reach the upstream (its 404s get this server banned); good ones are sent in canonical form.
// The translation is checked against /data; the upstream's policy in catalog/upstreams.yaml (15 calls /
// 30 s; 3 404s in 30 s → a pause; a 403 → an hour) answers 503 + Retry-After instead of calling. Each test
// gets its own app (the suite's perTest), and so its own policy state and /data memo.
import type { FakeResponse } from '../../helpers/fake-upstream.js';
import { upstreamSuite } from '../../helpers/upstream-suite.js';
import { expectAnswer, expectMatchesSchema } from '../../helpers/schema.js';
import { expectCacheHit, expectCoalesced } from '../../helpers/cache-checks.js';
import { UPSTREAM_FAILURES, expectFailure } from '../../helpers/upstream-failures.js';
import { shortTimeoutCtx } from '../../helpers/short-timeout.js';
import bibleB from '../../../adapters/books/bible-b.js';

const PATH = '/api/v1/books/bible-b';

/** When set, the fake answers every passage request (not /data) with it. */
let failWith: FakeResponse | undefined;
let dataAnswer: FakeResponse | undefined;
const s = upstreamSuite({
  endpoint: 'books/bible-b',
  perTest: true,
  env: { UPSTREAM_POLICIES: 'on' },
  upstreams: {
    'bible-api': {
      routes: {
        'GET /data': () => dataAnswer ?? { json: fixture('data.json') },
        'GET /:ref': (r, p) =>
          failWith ??
          (p.ref === 'Nahum 1:9'
            ? { status: 404, json: { error: 'not found' } }
            : { json: fixture('john-3-16.json'), delayMs: p.ref.startsWith('Mark') ? 150 : 0 }),
      },
    },
  },
});
const { fake, fixture, get } = s;
const passages = () => fake.calls.filter((c) => c.path !== '/data');
beforeEach(() => {
  failWith = undefined;
  dataAnswer = undefined;
});
const sentRef = (i = 0) => decodeURIComponent(passages()[i].path.slice(1));

describe('references', () => {
  test('John 3:16 in the default translation: /data once, then the passage', async () => {
    const res = await get({ ref: 'John 3:16' });
    expectAnswer(res, 'bible-api');
    expect(res.body.data).toEqual({
      reference: 'John 3:16',
      verses: [
        {
          book_id: 'JHN',
          book_name: 'John',
          chapter: 3,
          verse: 16,
          text: 'For God so loved the world, that he gave his one and only Son.',
        },
      ],
      text: 'For God so loved the world, that he gave his one and only Son.',
      translation_id: 'web',
      translation_name: 'World English Bible',
      translation_note: 'Public Domain',
    });
    expectMatchesSchema('books/bible-b', res.body.data);
    expect(fake.calls.map((c) => c.path)).toEqual(['/data', '/John%203:16']);
    expect(fake.calls[1].query.get('translation')).toBe('web');
  });

  test.each([
    ['jn 3:16-18', 'John 3:16-18'],
    ['Romans 12:1-2,5-7', 'Romans 12:1-2,12:5-7'],
    ['Psalm 23', 'Psalms 23'],
    ['1 sam 3:4', '1 Samuel 3:4'],
    ['John 3:16-4:2', 'John 3:16-4:2'],
    ['Song of Songs 2:1', 'Song of Solomon 2:1'],
  ])('%s is sent as %s', async (ref, canonical) => {
    const res = await get({ ref });
    expect(res.status).toBe(200);
    expect(sentRef()).toBe(canonical);
  });

  test('a translation named in the reference is used; the parameter wins over it', async () => {
    await get({ ref: 'John 3:16 KJV' });
    expect(passages()[0].query.get('translation')).toBe('kjv');
    await get({ ref: 'John 3:17 KJV', translation: 'web' });
    expect(passages()[1].query.get('translation')).toBe('web');
  });

  test.each([
    ['hello world', 'Invalid value for ref: must be a Bible reference such as John 3:16, Romans 12:1-2 or Psalm 23'],
    ['Genesis 51', 'Invalid value for ref: Genesis has 50 chapters'],
    ['John 3:99', 'Invalid value for ref: John 3 has 36 verses'],
    ['John 3:0', 'Invalid value for ref: chapters and verses start at 1'],
    ['xyz 3:16 John 1:1', 'Invalid value for ref: must be only a Bible reference such as John 3:16, Romans 12:1-2 or Psalm 23'],
    ['Gen 1:1; Exod 2:3', 'Invalid value for ref: must stay within one book'],
    ['Genesis', 'Invalid value for ref: must be a Bible reference such as John 3:16, Romans 12:1-2 or Psalm 23'],
  ])('%s → 400 with no upstream call at all', async (ref, message) => {
    const res = await get({ ref });
    expect(res.status).toBe(400);
    expect(res.body.error).toBe(message);
    expect(fake.calls).toHaveLength(0);
  });

  test('ref too long, translation malformed → 400', async () => {
    expect((await get({ ref: 'x'.repeat(101) })).body.error).toBe('Invalid value for ref: must be at most 100 characters');
    expect((await get({ ref: 'John 1:1', translation: 'k j v' })).body.error).toBe(
      'Invalid value for translation: must be a translation id such as web or kjv',
    );
    expect(fake.calls).toHaveLength(0);
  });
});

describe('translations', () => {
  test('an unknown translation → 400 naming the known ones; /data is read once a day', async () => {
    const res = await get({ ref: 'John 1:1', translation: 'niv' });
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('Invalid value for translation: unknown translation niv; known: kjv, web');
    await get({ ref: 'John 1:2', translation: 'esv' });
    expect(fake.calls.map((c) => c.path)).toEqual(['/data']);
  });

  test('/data unavailable: the built-in list is used', async () => {
    dataAnswer = { status: 500, json: {} };
    expect((await get({ ref: 'John 1:1', translation: 'asv' })).status).toBe(200);
    expect((await get({ ref: 'John 1:1', translation: 'niv' })).status).toBe(400);
  });
});

describe('the guard', () => {
  test('a 404 is a 404; three within 30 s pause forwarding (503 + Retry-After, no call)', async () => {
    for (let i = 0; i < 3; i++) {
      const res = await get({ ref: 'Nahum 1:9', translation: i ? 'kjv' : 'web' });
      expectFailure(res, { status: 404, code: 'not_found' });
    }
    expect(passages()).toHaveLength(3);
    const paused = await get({ ref: 'John 1:1' });
    expectFailure(paused, { status: 503, code: 'upstream_busy' });
    expect(Number(paused.headers['retry-after'])).toBeLessThanOrEqual(30);
    expect(passages()).toHaveLength(3);
  });

  test('a 403 ban pauses forwarding for an hour', async () => {
    failWith = { status: 403, json: { error: 'banned' } };
    const res = await get({ ref: 'John 1:1' });
    expectFailure(res, { status: 503, code: 'upstream_busy' });
    expect(Number(res.headers['retry-after'])).toBeGreaterThan(3500);
    failWith = undefined;
    expectFailure(await get({ ref: 'John 1:2' }), { status: 503, code: 'upstream_busy' });
    expect(passages()).toHaveLength(1);
  });

  test('at most 15 calls per 30 s (/data included), then 503 without calling', async () => {
    const statuses: number[] = [];
    for (let v = 1; v <= 16; v++) statuses.push((await get({ ref: `John 1:${v}` })).status);
    expect(statuses.slice(0, 14)).toEqual(Array(14).fill(200));
    expect(statuses.slice(14)).toEqual([503, 503]);
    expect(fake.calls).toHaveLength(15);
  });

  test('"too many chapters" (400) → 400', async () => {
    failWith = { status: 400, json: { error: 'too many chapters' } };
    const res = await get({ ref: 'Psalms 1-40' });
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('Invalid value for ref: covers too many chapters; ask for a shorter passage');
  });
});

describe('upstream failures', () => {
  test.each(UPSTREAM_FAILURES)('$name → $status', async (f) => {
    failWith = f.answer;
    expectFailure(await get({ ref: 'Luke 2:1' }), f);
  });

  test('a body without verses → 502', async () => {
    failWith = { json: { reference: 'Luke 2:1' } };
    expectFailure(await get({ ref: 'Luke 2:1' }), { status: 502, code: 'upstream_changed' });
  });

  test('slower than the upstream timeout → 504', async () => {
    failWith = { json: fixture('john-3-16.json'), delayMs: 2000 };
    await expect(bibleB({ ref: 'Luke 2:1', translation: 'web' }, shortTimeoutCtx('bible-api', fake.url))).rejects.toMatchObject({
      status: 504,
    });
  });
});

describe('cache', () => {
  test('an identical second call is served from the cache', async () => {
    await get({ ref: 'Acts 1:1' }); // reads /data first
    await expectCacheHit({ t: s.t, path: PATH, query: { ref: 'John 3:16' }, upstreamCalls: () => fake.calls.length });
  });

  test('concurrent identical calls share one upstream call', async () => {
    await get({ ref: 'Acts 1:1' });
    await expectCoalesced({ t: s.t, path: PATH, query: { ref: 'Mark 1:1' }, upstreamCalls: () => fake.calls.length });
  });
});
