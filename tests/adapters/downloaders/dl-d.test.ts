// downloaders/dl-d (TikTok): cobalt when configured, the keyless tikwm when cobalt is not configured or
// fails. tikwm's errors come inside HTTP 200 (code ≠ 0); its media paths may be relative; the watermarked
// copy is never offered; when both providers fail the more telling error wins.
import type { FakeResponse } from '../../helpers/fake-upstream.js';
import { upstreamSuite, type Caller } from '../../helpers/upstream-suite.js';
import { hangUp, onHungUpstream } from '../../helpers/hung-upstream.js';
import { expectAnswer, expectMatchesSchema } from '../../helpers/schema.js';
import { asProviderGave } from '../../helpers/media-links.js';
import { expectFailure } from '../../helpers/upstream-failures.js';
import { shortTimeoutCtx } from '../../helpers/short-timeout.js';
import { pino } from 'pino';
import { loadCatalog } from '../../../engine/catalog/load.js';
import { loadConfig } from '../../../server/config.js';
import { createUpstreams } from '../../../engine/upstream/client.js';
import dlDTikwm from '../../../adapters/downloaders/dl-d-tikwm.js';

const TT = 'https://www.tiktok.com/@scout2015/video/6718335390845095173';

let cobaltAnswer: () => FakeResponse;
let tikwmAnswer: () => FakeResponse;
// Answers are not reused here (MEDIA_CACHE_TTL=off): each test gives the one link an answer of its own.
const s = upstreamSuite({
  env: { MEDIA_CACHE_TTL: 'off' },
  endpoint: 'downloaders/dl-d',
  upstreams: {
    cobalt: { routes: { 'POST /': () => cobaltAnswer() } },
    tikwm: { routes: { 'GET /api/': () => tikwmAnswer() } },
  },
});
const { tikwm } = s.fakes;
const withCobalt = s;
const tikwmOnly = s.app({ without: ['cobalt'] });
const cobaltFixture = (name: string) => s.fixture('cobalt', name);
const tikwmFixture = (name: string) => s.fixture('tikwm', name);
beforeEach(() => {
  cobaltAnswer = () => ({ json: cobaltFixture('tunnel-tiktok.json') });
  tikwmAnswer = () => ({ json: tikwmFixture('video.json') });
});

const get = async (app: Caller, url = TT) => asProviderGave(await app.get({ url }));

describe('cobalt first', () => {
  test('a configured cobalt answers; tikwm is not asked', async () => {
    const res = await get(withCobalt);
    expectAnswer(res, 'cobalt');
    expect(res.body.data).toEqual({
      title: null,
      author: null,
      thumbnail: null,
      medias: [{ url: cobaltFixture('tunnel-tiktok.json').url, type: 'video', quality: null, extension: 'mp4' }],
    });
    expectMatchesSchema('downloaders/dl-d', res.body.data);
    expect(tikwm.calls).toHaveLength(0);
  });

  test('a slideshow picker: photos and the background audio', async () => {
    cobaltAnswer = () => ({ json: cobaltFixture('picker-tiktok-slideshow.json') });
    const res = await get(withCobalt, 'https://www.tiktok.com/@scout2015/photo/7400000000000000001');
    expect(res.status).toBe(200);
    expect(res.body.data.medias.map((m: { type: string; extension: string }) => `${m.type}:${m.extension}`)).toEqual([
      'image:jpg',
      'image:jpg',
      'audio:mp3',
    ]);
    expectMatchesSchema('downloaders/dl-d', res.body.data);
  });

  test('cobalt asking for local processing (a remux with subtitles): the one video; the subtitle tunnel is no media', async () => {
    const lp = cobaltFixture('local-processing-tiktok-remux.json');
    cobaltAnswer = () => ({ json: lp });
    const res = await get(withCobalt);
    expectAnswer(res, 'cobalt');
    expect(res.body.data).toEqual({
      title: null,
      author: null,
      thumbnail: null,
      medias: [{ url: lp.tunnel[0], type: 'video', quality: null, extension: 'mp4' }],
    });
    expectMatchesSchema('downloaders/dl-d', res.body.data);
    expect(tikwm.calls).toHaveLength(0);
  });

  test.each([
    ['error.api.fetch.fail', { status: 400, json: cobaltFixture('error-fetch.json') }],
    ['HTTP 500', { status: 500, text: 'boom' }],
    ['link not understood', { status: 400, json: cobaltFixture('error-link-invalid.json') }],
    ['rate limited', { status: 429, json: cobaltFixture('error-rate.json') }],
  ] as Array<[string, FakeResponse]>)('cobalt failing (%s) → tikwm answers', async (_n, a) => {
    cobaltAnswer = () => a;
    const res = await get(withCobalt);
    expectAnswer(res, 'tikwm');
    expect(tikwm.calls).toHaveLength(1);
  });

  test('both failing: a 4xx from either wins over a 5xx', async () => {
    cobaltAnswer = () => ({ status: 400, json: cobaltFixture('error-content-unavailable.json') });
    tikwmAnswer = () => ({ status: 500, text: 'down' });
    expectFailure(await get(withCobalt), { status: 404, code: 'not_found' });
    cobaltAnswer = () => ({ status: 500, text: 'down' });
    tikwmAnswer = () => ({ json: tikwmFixture('error-url.json') });
    expectFailure(await get(withCobalt), { status: 404, code: 'not_found' });
    tikwmAnswer = () => ({ status: 500, text: 'down' });
    expectFailure(await get(withCobalt), { status: 502, code: 'upstream_failed' });
  });
});

describe('tikwm (cobalt not configured)', () => {
  test('GET /api/?url=…&hd=1; HD and standard video, the sound; never the watermarked copy; relative paths made absolute', async () => {
    const res = await get(tikwmOnly);
    expectAnswer(res, 'tikwm');
    expect(tikwm.calls[0].path).toBe('/api/');
    expect(Object.fromEntries(tikwm.calls[0].query)).toEqual({ url: TT, hd: '1' });
    const d = tikwmFixture('video.json').data;
    expect(res.body.data).toEqual({
      title: d.title,
      author: 'Scout',
      thumbnail: d.cover,
      medias: [
        { url: `${tikwm.url}/video/media/hdplay/6718335390845095173.mp4`, type: 'video', quality: 'hd', extension: 'mp4' },
        { url: d.play, type: 'video', quality: 'sd', extension: 'mp4' },
        { url: d.music, type: 'audio', quality: null, extension: 'mp3' },
      ],
    });
    expect(JSON.stringify(res.body)).not.toContain(d.wmplay);
    expectMatchesSchema('downloaders/dl-d', res.body.data);
  });

  test('no HD rendition: "hdplay" is the "play" file again (same byte size, another link), so one video, not two qualities', async () => {
    tikwmAnswer = () => ({ json: tikwmFixture('video-no-hd.json') });
    const res = await get(tikwmOnly);
    expectAnswer(res, 'tikwm');
    const d = tikwmFixture('video-no-hd.json').data;
    expect(d.hd_size).toBe(d.size);
    expect(res.body.data.medias).toEqual([
      { url: d.play, type: 'video', quality: null, extension: 'mp4' },
      { url: d.music, type: 'audio', quality: null, extension: 'mp3' },
    ]);
    expectMatchesSchema('downloaders/dl-d', res.body.data);
  });

  test('"hdplay" and "play" the same link (relative and absolute): one video', async () => {
    const d = tikwmFixture('video.json').data;
    tikwmAnswer = () => ({
      json: { ...tikwmFixture('video.json'), data: { ...d, play: `${tikwm.url}${d.hdplay}`, hd_size: 0 } },
    });
    const res = await get(tikwmOnly);
    expect(res.body.data.medias).toEqual([
      { url: `${tikwm.url}${d.hdplay}`, type: 'video', quality: null, extension: 'mp4' },
      { url: d.music, type: 'audio', quality: null, extension: 'mp3' },
    ]);
  });

  test('a slideshow: its "play" is the sound (typed by its file), photos follow, repeats dropped', async () => {
    tikwmAnswer = () => ({ json: tikwmFixture('slideshow.json') });
    const res = await get(tikwmOnly);
    expect(res.status).toBe(200);
    const d = tikwmFixture('slideshow.json').data;
    expect(res.body.data.author).toBe('lisbonlover');
    expect(res.body.data.medias).toEqual([
      { url: d.play, type: 'audio', quality: null, extension: 'mp3' },
      { url: d.images[0], type: 'image', quality: null, extension: 'jpg' },
      { url: d.images[1], type: 'image', quality: null, extension: 'jpg' },
    ]);
  });

  test.each([
    ['code -1 (url parsing failed)', { json: tikwmFixture('error-url.json') }, 404, 'not_found'],
    ['free API limit', { json: tikwmFixture('error-limit.json') }, 503, 'upstream_busy'],
    ['no media at all', { json: { code: 0, msg: 'success', data: { title: 'x', images: [] } } }, 404, 'not_found'],
    ['no data', { json: { code: 0, msg: 'success' } }, 502, 'upstream_changed'],
    ['malformed', { headers: { 'content-type': 'application/json' }, text: '<html>' }, 502, 'upstream_changed'],
    ['HTTP 429', { status: 429, headers: { 'retry-after': '3' }, json: {} }, 503, 'upstream_busy'],
    ['HTTP 500', { status: 500, text: 'down' }, 502, 'upstream_failed'],
  ] as Array<[string, FakeResponse, number, string]>)('%s → %s', async (_n, a, status, code) => {
    tikwmAnswer = () => a;
    expectFailure(await get(tikwmOnly), { status, code });
  });

  test('a URL off TikTok is refused before any call', async () => {
    const res = await get(tikwmOnly, 'https://www.tiktok.evil.example/@x/video/1');
    expect(res.status).toBe(400);
    const sub = await get(tikwmOnly, 'https://ads.tiktok.com/@x/video/1');
    expect(sub.status).toBe(400);
    expect(sub.body.error).toBe(
      'Invalid value for url: must be an http(s) URL on tiktok.com, www.tiktok.com, m.tiktok.com, vm.tiktok.com, vt.tiktok.com',
    );
    expect(tikwm.calls).toHaveLength(0);
  });

  test('slow tikwm → 504', async () => {
    tikwm.failWith = { delayMs: 2000, json: tikwmFixture('video.json') };
    // cobalt left unconfigured, tikwm with a short timeout.
    const cfg = loadCatalog(loadConfig({}).catalogDir).upstreams;
    const upstream = createUpstreams(
      { cobalt: cfg.cobalt, tikwm: { ...cfg.tikwm, timeout: '200ms', retries: 0 } },
      { UPSTREAM_TIKWM_URL: tikwm.url },
      { userAgent: 'test', log: pino({ level: 'silent' }) },
    );
    await expect(dlDTikwm({ url: TT }, shortTimeoutCtx('tikwm', tikwm.url, '200ms', { upstream }))).rejects.toMatchObject({
      status: 504,
      code: 'upstream_timeout',
    });
  });
});

test('a client hanging up while cobalt works: the call is cancelled and tikwm is never asked', async () => {
  await onHungUpstream(
    s,
    (url) => ({ UPSTREAM_COBALT_URL: url }),
    async (hung, server, app) => {
      await hangUp(`${server}/api/v1/downloaders/dl-d?apikey=${app.key}&url=${encodeURIComponent(TT)}`, hung.requested);
      expect(await hung.closedWithin(5000)).toBe(true);
      await new Promise((ok) => setTimeout(ok, 100));
      expect(tikwm.calls).toHaveLength(0);
    },
  );
});
