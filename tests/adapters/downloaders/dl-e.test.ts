// downloaders/dl-e (X/Twitter): the post id is required; cobalt when configured, the keyless FxTwitter when
// cobalt is not configured or fails. FxTwitter's `code` ≠ 200 is a 404; GIFs arrive as MP4 videos.
import { pino } from 'pino';
import { loadCatalog } from '../../../engine/catalog/load.js';
import { loadConfig } from '../../../server/config.js';
import { createUpstreams } from '../../../engine/upstream/client.js';
import type { FakeResponse } from '../../helpers/fake-upstream.js';
import { upstreamSuite, type Caller } from '../../helpers/upstream-suite.js';
import { expectAnswer, expectMatchesSchema } from '../../helpers/schema.js';
import { asProviderGave } from '../../helpers/media-links.js';
import { expectFailure } from '../../helpers/upstream-failures.js';
import { shortTimeoutCtx } from '../../helpers/short-timeout.js';
import dlEFxtwitter from '../../../adapters/downloaders/dl-e-fxtwitter.js';

const POST = 'https://x.com/NASA/status/1790458410243506437';

let cobaltAnswer: () => FakeResponse;
let fxAnswer: (id: string) => FakeResponse;
// Answers are not reused here (MEDIA_CACHE_TTL=off): each test gives the one link an answer of its own.
const s = upstreamSuite({
  env: { MEDIA_CACHE_TTL: 'off' },
  endpoint: 'downloaders/dl-e',
  upstreams: {
    cobalt: { routes: { 'POST /': () => cobaltAnswer() } },
    fxtwitter: { routes: { 'GET /status/:id': (_req, p) => fxAnswer(p.id) } },
  },
});
const { cobalt, fxtwitter } = s.fakes;
const withCobalt = s;
const fxOnly = s.app({ without: ['cobalt'] });
const cobaltFixture = (name: string) => s.fixture('cobalt', name);
const fx = (name: string) => s.fixture('fxtwitter', name);
beforeEach(() => {
  cobaltAnswer = () => ({ json: cobaltFixture('tunnel-twitter.json') });
  fxAnswer = () => ({ json: fx('video.json') });
});

const get = async (app: Caller, url = POST) => asProviderGave(await app.get({ url }));

describe('links', () => {
  test.each([
    'https://twitter.com/NASA/status/1790458410243506437',
    'https://mobile.twitter.com/NASA/status/1790458410243506437?s=20',
    'https://www.x.com/i/web/status/1790458410243506437',
    'https://x.com/NASA/status/1790458410243506437/photo/1',
    'https://mobile.x.com/NASA/statuses/1790458410243506437',
  ])('%s → post 1790458410243506437', async (url) => {
    const res = await get(fxOnly, url);
    expect(res.status).toBe(200);
    expect(fxtwitter.calls[0].path).toBe('/status/1790458410243506437');
  });

  test.each(['https://x.com/NASA', 'https://twitter.com/NASA/likes', 'https://x.com/NASA/status/abc'])(
    '%s has no post id → 400',
    async (url) => {
      const res = await get(withCobalt, url);
      expect(res.status).toBe(400);
      expect(res.body.error).toBe('Invalid value for url: must link to a post (…/status/<id>)');
      expect(cobalt.calls).toHaveLength(0);
    },
  );

  test('hosts other than twitter.com and x.com (and their www./mobile.) are refused', async () => {
    for (const url of ['https://api.x.com/NASA/status/1', 'https://fxtwitter.com/NASA/status/1', 'https://nitter.net/NASA/status/1']) {
      expect((await get(withCobalt, url)).status).toBe(400);
    }
    expect(cobalt.calls).toHaveLength(0);
  });
});

describe('cobalt first', () => {
  test('a tunnel; FxTwitter is not asked', async () => {
    const res = await get(withCobalt);
    expectAnswer(res, 'cobalt');
    expect((cobalt.calls[0].json() as { url: string }).url).toBe(POST);
    expect(res.body.data.medias).toEqual([
      { url: cobaltFixture('tunnel-twitter.json').url, type: 'video', quality: null, extension: 'mp4' },
    ]);
    expectMatchesSchema('downloaders/dl-e', res.body.data);
    expect(fxtwitter.calls).toHaveLength(0);
  });

  test('a picker of a photo (format in the query) and a GIF', async () => {
    cobaltAnswer = () => ({ json: cobaltFixture('picker-twitter.json') });
    const res = await get(withCobalt);
    const p = cobaltFixture('picker-twitter.json').picker;
    expect(res.body.data).toEqual({
      title: null,
      author: null,
      thumbnail: p[0].thumb,
      medias: [
        { url: p[0].url, type: 'image', quality: null, extension: 'jpg' },
        { url: p[1].url, type: 'gif', quality: null, extension: 'gif' },
      ],
    });
  });

  test('cobalt asking for local processing of a GIF: the MP4 clip it would convert, as a gif media', async () => {
    const lp = cobaltFixture('local-processing-twitter-gif.json');
    cobaltAnswer = () => ({ json: lp });
    const res = await get(withCobalt);
    expectAnswer(res, 'cobalt');
    expect(res.body.data.medias).toEqual([{ url: lp.tunnel[0], type: 'gif', quality: null, extension: 'mp4' }]);
    expect(res.body.data.title).toBeNull();
    expectMatchesSchema('downloaders/dl-e', res.body.data);
    expect(fxtwitter.calls).toHaveLength(0);
  });

  test('cobalt failing → FxTwitter answers', async () => {
    cobaltAnswer = () => ({ status: 400, json: cobaltFixture('error-fetch.json') });
    const res = await get(withCobalt);
    expectAnswer(res, 'fxtwitter');
  });

  test('both failing: cobalt says the post is gone, FxTwitter is down → 404', async () => {
    cobaltAnswer = () => ({ status: 400, json: cobaltFixture('error-content-unavailable.json') });
    fxAnswer = () => ({ status: 500, json: { code: 500, message: 'API_FAIL' } });
    expectFailure(await get(withCobalt), { status: 404, code: 'not_found' });
  });
});

describe('FxTwitter (cobalt not configured)', () => {
  test("video and photo in the post's order; quality from the size; the video's thumbnail; text and author", async () => {
    const res = await get(fxOnly);
    expectAnswer(res, 'fxtwitter');
    const m = fx('video.json').tweet.media.all;
    expect(res.body.data).toEqual({
      title: 'Liftoff! Watch the launch from the pad.',
      author: 'NASA',
      thumbnail: m[0].thumbnail_url,
      medias: [
        { url: m[0].url, type: 'video', quality: '1080p', extension: 'mp4' },
        { url: m[1].url, type: 'image', quality: null, extension: 'jpg' },
      ],
    });
    expectMatchesSchema('downloaders/dl-e', res.body.data);
  });

  test('a GIF is a gif media (an MP4 file); an empty text is a null title', async () => {
    fxAnswer = () => ({ json: fx('gif.json') });
    const res = await get(fxOnly);
    expect(res.body.data).toEqual({
      title: null,
      author: 'catsofx',
      thumbnail: 'https://pbs.twimg.com/tweet_video_thumb/GNcatloop.jpg',
      medias: [{ url: 'https://video.twimg.com/tweet_video/GNcatloop.mp4', type: 'gif', quality: '270p', extension: 'mp4' }],
    });
    expectMatchesSchema('downloaders/dl-e', res.body.data);
  });

  test('a long text is cut to 280 characters', async () => {
    fxAnswer = () => ({ json: { ...fx('video.json'), tweet: { ...fx('video.json').tweet, text: 'a'.repeat(1000) } } });
    const res = await get(fxOnly);
    expect(res.body.data.title).toHaveLength(280);
    expect(res.body.data.title.endsWith('…')).toBe(true);
  });

  test.each([
    ['HTTP 404 NOT_FOUND', { status: 404, json: fx('not-found.json') }, 404, 'not_found'],
    ['HTTP 401 PRIVATE_TWEET', { status: 401, json: fx('private.json') }, 404, 'not_found'],
    ['code 404 inside HTTP 200', { json: fx('not-found.json') }, 404, 'not_found'],
    ['a post without media', { json: fx('text-only.json') }, 404, 'not_found'],
    ['HTTP 500', { status: 500, json: { code: 500, message: 'API_FAIL' } }, 502, 'upstream_failed'],
    ['malformed', { headers: { 'content-type': 'application/json' }, text: '<html>' }, 502, 'upstream_changed'],
    ['a 200 of another shape', { json: { ok: true } }, 502, 'upstream_changed'],
  ] as Array<[string, FakeResponse, number, string]>)('%s → %s', async (_n, a, status, code) => {
    fxAnswer = () => a;
    expectFailure(await get(fxOnly), { status, code });
  });

  test('slow FxTwitter → 504', async () => {
    fxtwitter.failWith = { delayMs: 2000, json: fx('video.json') };
    const cfg = loadCatalog(loadConfig({}).catalogDir).upstreams;
    const upstream = createUpstreams(
      { cobalt: cfg.cobalt, fxtwitter: { ...cfg.fxtwitter, timeout: '200ms', retries: 0 } },
      { UPSTREAM_FXTWITTER_URL: fxtwitter.url },
      { userAgent: 'test', log: pino({ level: 'silent' }) },
    );
    await expect(dlEFxtwitter({ url: POST }, shortTimeoutCtx('fxtwitter', fxtwitter.url, '200ms', { upstream }))).rejects.toMatchObject({
      status: 504,
      code: 'upstream_timeout',
    });
  });
});
