// downloaders/dl-a (YouTube), dl-b (Facebook) and dl-c (Instagram) against a loopback cobalt: the POST /
// body, tunnel/redirect/picker and cobalt 11's local-processing (one media per source stream) mapped to
// the one shape, made-up file names never shown as titles, error codes mapped (link → 400, content → 404,
// rate → 503, else 502), the exact host lists and Instagram's post paths, answers reused, a 503 naming
// UPSTREAM_COBALT_URL until one is set, and a client that hangs up cancelling the cobalt call.
import type { FakeResponse } from '../../helpers/fake-upstream.js';
import { upstreamSuite, type Caller } from '../../helpers/upstream-suite.js';
import { hangUp, onHungUpstream } from '../../helpers/hung-upstream.js';
import { expectAnswer, expectMatchesSchema } from '../../helpers/schema.js';
import { asProviderGave } from '../../helpers/media-links.js';
import { expectFailure } from '../../helpers/upstream-failures.js';
import { shortTimeoutCtx } from '../../helpers/short-timeout.js';
import dlA from '../../../adapters/downloaders/dl-a.js';

const YT = 'https://www.youtube.com/watch?v=dQw4w9WgXcQ';
const FB = 'https://www.facebook.com/reel/1234567890123456';
const IG = 'https://www.instagram.com/p/C0abcDEFghi/';

interface CobaltBody {
  url: string;
  videoQuality: string;
  downloadMode: string;
  filenameStyle: string;
}
let answer: (body: CobaltBody) => FakeResponse;
// Answers are not reused here (MEDIA_CACHE_TTL=off): each test gives the one link an answer of its own.
const s = upstreamSuite({
  upstreams: { cobalt: { routes: { 'POST /': (req) => answer(req.json() as CobaltBody) } } },
  env: { MEDIA_CACHE_TTL: 'off' },
});
const { fake, fixture } = s;
beforeEach(() => {
  answer = () => ({ json: fixture('tunnel-youtube.json') });
});

const get = async (endpoint: string, url: string, app: Caller = s) => asProviderGave(await app.get({ url }, `downloaders/${endpoint}`));

describe('dl-a (YouTube)', () => {
  test('POST / with the configured body; a tunnel becomes one video with its quality; a classic file name is no title', async () => {
    const res = await get('dl-a', YT);
    expectAnswer(res, 'cobalt');
    const call = fake.calls[0];
    expect(call.method).toBe('POST');
    expect(call.path).toBe('/');
    expect(call.headers.accept).toBe('application/json');
    expect(call.headers['content-type']).toMatch(/application\/json/);
    expect(call.json()).toEqual({ url: YT, videoQuality: '1080', downloadMode: 'auto', filenameStyle: 'classic' });
    expect(res.body.data).toEqual({
      title: null,
      author: null,
      thumbnail: 'https://i.ytimg.com/vi/dQw4w9WgXcQ/hqdefault.jpg',
      medias: [{ url: fixture('tunnel-youtube.json').url, type: 'video', quality: '1080p', extension: 'mp4' }],
    });
    expectMatchesSchema('downloaders/dl-a', res.body.data);
  });

  test.each([
    ['https://youtu.be/dQw4w9WgXcQ?si=abc', 'dQw4w9WgXcQ'],
    ['https://m.youtube.com/shorts/aBcDeFgHiJk', 'aBcDeFgHiJk'],
    ['https://music.youtube.com/watch?v=Zz9_Yy8-Xx7', 'Zz9_Yy8-Xx7'],
    ['https://youtube.com/embed/dQw4w9WgXcQ', 'dQw4w9WgXcQ'],
  ])('%s → thumbnail of %s', async (url, id) => {
    const res = await get('dl-a', url);
    expect(res.status).toBe(200);
    expect(res.body.data.thumbnail).toBe(`https://i.ytimg.com/vi/${id}/hqdefault.jpg`);
  });

  test('an audio-only answer is an audio media', async () => {
    answer = () => ({ json: { status: 'tunnel', url: 'http://cobalt.internal/tunnel?id=a', filename: 'youtube_dQw4w9WgXcQ_audio.mp3' } });
    const res = await get('dl-a', YT);
    expect(res.body.data.medias).toEqual([{ url: 'http://cobalt.internal/tunnel?id=a', type: 'audio', quality: null, extension: 'mp3' }]);
  });

  test('the pretty file name style gives a real title and author', async () => {
    answer = () => ({
      json: {
        status: 'tunnel',
        url: 'http://cobalt.internal/t',
        filename: 'Never Gonna Give You Up - Rick Astley (1080p, h264, youtube).mp4',
      },
    });
    const ctx = shortTimeoutCtx('cobalt', fake.url, '5s');
    const upstream = ctx.upstream.bind(ctx);
    const withPretty = {
      ...ctx,
      upstream: (id: string) => ({
        ...upstream(id),
        settings: { ...upstream(id).settings, filenameStyle: 'pretty' },
      }),
    };
    const out = await dlA({ url: YT }, withPretty);
    expect((out as { data: Record<string, unknown> }).data).toMatchObject({
      title: 'Never Gonna Give You Up',
      author: 'Rick Astley',
      medias: [{ quality: '1080p', extension: 'mp4' }],
    });
    expect((fake.calls[0].json() as CobaltBody).filenameStyle).toBe('pretty');
  });

  test('a classic name (service, id, size, codec) is never shown as a title', async () => {
    answer = () => ({ json: { status: 'tunnel', url: 'http://cobalt.internal/t', filename: 'youtube_tPEE9ZwTmy0_854x470_h264.mp4' } });
    const res = await get('dl-a', 'https://www.youtube.com/watch?v=tPEE9ZwTmy0');
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ title: null, author: null, medias: [{ quality: '470p', extension: 'mp4' }] });
  });

  test('with a titled file name style, the title and author come from the name; a name the service made up is still no title', async () => {
    await s.withApp({ env: { UPSTREAM_COBALT_FILENAME_STYLE: 'basic' } }, async (basic) => {
      answer = () => ({
        json: { status: 'tunnel', url: 'http://cobalt.internal/t', filename: 'Never Gonna Give You Up - Rick Astley (1080p, h264).mp4' },
      });
      const titled = await get('dl-a', YT, basic);
      expect((fake.calls[0].json() as CobaltBody).filenameStyle).toBe('basic');
      expect(titled.body.data).toMatchObject({ title: 'Never Gonna Give You Up', author: 'Rick Astley', medias: [{ quality: '1080p' }] });
      answer = () => ({ json: { status: 'tunnel', url: 'http://cobalt.internal/t', filename: 'Untitled clip (720p, h264).mp4' } });
      expect((await get('dl-a', YT, basic)).body.data).toMatchObject({ title: 'Untitled clip', author: null });
      // Facebook, Instagram, TikTok and X have fixed names in every style.
      answer = () => ({ json: fixture('redirect-facebook.json') });
      const fixed = await get('dl-b', FB, basic);
      expect(fixed.status).toBe(200);
      expect(fixed.body.data).toMatchObject({ title: null, author: null });
    });
  });

  test('reused for MEDIA_CACHE_TTL: a repeat asks cobalt nothing, and its links are sealed anew', async () => {
    await s.withApp({ env: { MEDIA_CACHE_TTL: '10m' } }, async (caching) => {
      const first = await caching.get({ url: YT }, 'downloaders/dl-a');
      const second = await caching.get({ url: YT }, 'downloaders/dl-a');
      expect([first.body.metadata.cached, second.body.metadata.cached]).toEqual([false, true]);
      expect(second.body.data.medias[0].sourceUrl).toBe(first.body.data.medias[0].sourceUrl);
      expect(second.body.data.medias[0].url).not.toBe(first.body.data.medias[0].url);
      expect(fake.calls).toHaveLength(1);
    });
  });

  test('a pooled key goes in the Authorization header as configured', async () => {
    await s.withApp({ env: { UPSTREAM_COBALT_KEYS: 'Api-Key 3f0c6a52-1b1f-4b4e-9d7e-5d2c8a1e9f00' } }, async (keyed) => {
      await get('dl-a', YT, keyed);
      expect(fake.calls[0].headers.authorization).toBe('Api-Key 3f0c6a52-1b1f-4b4e-9d7e-5d2c8a1e9f00');
    });
  });
});

describe('hosts', () => {
  test.each([
    ['dl-a', 'https://gaming.youtube.com/watch?v=dQw4w9WgXcQ'],
    ['dl-a', 'https://youtube.com.evil.example/watch?v=dQw4w9WgXcQ'],
    ['dl-a', 'ftp://youtube.com/watch?v=dQw4w9WgXcQ'],
    ['dl-a', 'not a url'],
    ['dl-b', 'https://business.facebook.com/reel/1'],
    ['dl-b', 'https://www.youtube.com/watch?v=dQw4w9WgXcQ'],
    ['dl-c', 'https://help.instagram.com/p/abc/'],
  ])('%s refuses %s', async (endpoint, url) => {
    const res = await get(endpoint, url);
    expect(res.status).toBe(400);
    expect(res.body.error).toMatch(/^Invalid value for url: must be an http\(s\) URL/);
    expect(fake.calls).toHaveLength(0);
  });

  test('the message lists the exact hosts', async () => {
    const res = await get('dl-a', 'https://gaming.youtube.com/watch?v=x');
    expect(res.body.error).toBe(
      'Invalid value for url: must be an http(s) URL on youtube.com, www.youtube.com, m.youtube.com, music.youtube.com, youtu.be',
    );
  });

  // fb.watch share links are followed to the post first: tests/engine/pipeline/steps/short-links.test.ts.
  test.each(['https://m.facebook.com/watch/?v=1', 'https://web.facebook.com/reel/1'])('dl-b accepts %s', async (url) => {
    answer = () => ({ json: fixture('redirect-facebook.json') });
    expect((await get('dl-b', url)).status).toBe(200);
  });
});

describe('dl-b (Facebook)', () => {
  test('asked once per configured quality; the same file is offered once', async () => {
    answer = () => ({ json: fixture('redirect-facebook.json') });
    const res = await get('dl-b', FB);
    expect(res.status).toBe(200);
    expect(fake.calls.map((c) => (c.json() as CobaltBody).videoQuality).sort()).toEqual(['1080', '360', '720']);
    expect(res.body.data).toEqual({
      title: null,
      author: null,
      thumbnail: null,
      medias: [{ url: fixture('redirect-facebook.json').url, type: 'video', quality: null, extension: 'mp4' }],
    });
    expectMatchesSchema('downloaders/dl-b', res.body.data);
  });

  test('distinct qualities are merged, best first; a failing lower quality is left out', async () => {
    answer = (b) =>
      b.videoQuality === '360'
        ? { status: 400, json: fixture('error-fetch.json') }
        : {
            json: {
              status: 'tunnel',
              url: `http://cobalt.internal/tunnel?id=${b.videoQuality}`,
              filename: `facebook_1_${b.videoQuality === '1080' ? '1920x1080' : '1280x720'}.mp4`,
            },
          };
    const res = await get('dl-b', FB);
    expect(res.status).toBe(200);
    expect(res.body.data.medias.map((m: { quality: string }) => m.quality)).toEqual(['1080p', '720p']);
  });

  test('the first quality failing fails the request', async () => {
    answer = (b) =>
      b.videoQuality === '1080'
        ? { status: 400, json: fixture('error-content-unavailable.json') }
        : { json: fixture('redirect-facebook.json') };
    expectFailure(await get('dl-b', FB), { status: 404, code: 'not_found' });
  });
});

describe('local-processing (cobalt 11 run with FORCE_LOCAL_PROCESSING)', () => {
  test('a merge: the video stream (no sound; the quality and container of the output file) and the sound stream; title and artist from the tags', async () => {
    const lp = fixture('local-processing-youtube-merge.json');
    answer = () => ({ json: lp });
    const res = await get('dl-a', YT);
    expectAnswer(res, 'cobalt');
    expect(res.body.data).toEqual({
      title: 'Rick Astley - Never Gonna Give You Up (Official Music Video)',
      author: 'Rick Astley',
      thumbnail: 'https://i.ytimg.com/vi/dQw4w9WgXcQ/hqdefault.jpg',
      medias: [
        { url: lp.tunnel[0], type: 'video', quality: '1080p', extension: 'mp4' },
        { url: lp.tunnel[1], type: 'audio', quality: null, extension: null },
      ],
    });
    expectMatchesSchema('downloaders/dl-a', res.body.data);
  });

  test('audio to transcode: the source sound (its format unknown, not the mp3 to make); the cover-art tunnel is no media', async () => {
    const lp = fixture('local-processing-youtube-audio.json');
    answer = () => ({ json: lp });
    const res = await get('dl-a', YT);
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ title: 'Never Gonna Give You Up', author: 'Rick Astley' });
    expect(res.body.data.medias).toEqual([{ url: lp.tunnel[0], type: 'audio', quality: null, extension: null }]);
    expectMatchesSchema('downloaders/dl-a', res.body.data);
    answer = () => ({ json: { ...lp, audio: { ...lp.audio, copy: true } } });
    expect((await get('dl-a', YT)).body.data.medias).toEqual([{ url: lp.tunnel[0], type: 'audio', quality: null, extension: 'mp3' }]);
  });

  test('without tags, the classic output name is still no title', async () => {
    const lp = fixture('local-processing-youtube-merge.json');
    answer = () => ({ json: { ...lp, output: { type: 'video/mp4', filename: lp.output.filename } } });
    const res = await get('dl-a', YT);
    expect(res.body.data).toMatchObject({ title: null, author: null, medias: [{ quality: '1080p' }, { type: 'audio' }] });
  });

  test.each([
    ['no tunnels', { tunnel: [] }],
    ['a merge with one stream', { tunnel: ['http://cobalt.internal/tunnel?id=a'] }],
    ['no output', { output: undefined }],
    ['an output without a file name', { output: { type: 'video/mp4' } }],
  ])('%s → 502', async (_n, change) => {
    answer = () => ({ json: { ...fixture('local-processing-youtube-merge.json'), ...change } });
    expectFailure(await get('dl-a', YT), { status: 502, code: 'upstream_changed' });
  });
});

describe('dl-c (Instagram)', () => {
  test('a carousel picker: one media per item, the first thumb as thumbnail', async () => {
    answer = () => ({ json: fixture('picker-instagram.json') });
    const res = await get('dl-c', IG);
    expect(res.status).toBe(200);
    const p = fixture('picker-instagram.json').picker;
    expect(res.body.data).toEqual({
      title: null,
      author: null,
      thumbnail: p[0].thumb,
      medias: [
        { url: p[0].url, type: 'image', quality: null, extension: 'jpg' },
        { url: p[1].url, type: 'video', quality: null, extension: 'mp4' },
        { url: p[2].url, type: 'gif', quality: null, extension: 'gif' },
      ],
    });
    expectMatchesSchema('downloaders/dl-c', res.body.data);
  });

  test.each([
    'https://www.instagram.com/reel/C1xyz_AB-9/',
    'https://instagram.com/tv/CabcDEF',
    'https://www.instagram.com/natgeo/p/C0abcDEFghi/',
    'https://www.instagram.com/reels/C1xyz/',
  ])('accepts %s', async (url) => {
    answer = () => ({ json: fixture('picker-instagram.json') });
    expect((await get('dl-c', url)).status).toBe(200);
  });

  test.each(['https://www.instagram.com/natgeo/', 'https://www.instagram.com/stories/natgeo/3141592653/', 'https://www.instagram.com/'])(
    'refuses %s (not a post)',
    async (url) => {
      const res = await get('dl-c', url);
      expect(res.status).toBe(400);
      expect(res.body.error).toBe('Invalid value for url: must link to an Instagram post, reel or IGTV video (/p/, /reel/ or /tv/)');
      expect(fake.calls).toHaveLength(0);
    },
  );
});

describe('cobalt errors', () => {
  test.each([
    ['error.api.link.invalid', 400, 'error-link-invalid.json', 400, 'bad_input'],
    ['error.api.content.video.unavailable', 400, 'error-content-unavailable.json', 404, 'not_found'],
    ['error.api.rate_exceeded', 429, 'error-rate.json', 503, 'upstream_busy'],
    ['error.api.fetch.fail', 400, 'error-fetch.json', 502, 'upstream_failed'],
    // Nothing at the link (a deleted or private post): the caller's link, not the downloader's failure.
    ['error.api.fetch.empty', 400, 'error-fetch-empty.json', 404, 'not_found'],
    ['error.api.auth.jwt.missing', 401, 'error-auth.json', 503, 'not_configured'],
  ])('%s (HTTP %s) → %s', async (_code, httpStatus, file, status, code) => {
    answer = () => ({ status: httpStatus, json: fixture(file) });
    const res = await get('dl-a', YT);
    // A missing key is the operator's to fix: 503 without Retry-After (there is nothing to wait for).
    if (code === 'not_configured') expect(res.body).toMatchObject({ success: false, code });
    else expectFailure(res, { status, code });
    expect(res.status).toBe(status);
  });

  test('the messages say what happened', async () => {
    answer = () => ({ status: 400, json: fixture('error-link-invalid.json') });
    expect((await get('dl-a', YT)).body.error).toBe('Invalid value for url: the downloader cannot use this link (error.api.link.invalid)');
    answer = () => ({ status: 401, json: fixture('error-auth.json') });
    expect((await get('dl-a', YT)).body.error).toContain('UPSTREAM_COBALT_KEYS');
  });

  test.each([
    ['an error status inside HTTP 200', { json: fixture('error-content-unavailable.json') }, 404, 'not_found'],
    ['local-processing (not asked for)', { json: { status: 'local-processing', type: 'merge', tunnel: [] } }, 502, 'upstream_changed'],
    ['an empty picker', { json: { status: 'picker', picker: [] } }, 404, 'not_found'],
    ['malformed JSON', { headers: { 'content-type': 'application/json' }, text: '<html>502</html>' }, 502, 'upstream_changed'],
    ['HTTP 500', { status: 500, text: 'boom' }, 502, 'upstream_failed'],
    ['HTTP 404 (wrong base URL)', { status: 404, text: 'Cannot POST /' }, 502, 'upstream_failed'],
  ] as Array<[string, FakeResponse, number, string]>)('%s → %s', async (_n, a, status, code) => {
    answer = () => a;
    expectFailure(await get('dl-a', YT), { status, code });
  });

  test('slow cobalt → 504', async () => {
    s.failWith = { delayMs: 2000, json: fixture('tunnel-youtube.json') };
    await expect(dlA({ url: YT }, shortTimeoutCtx('cobalt', fake.url, '200ms'))).rejects.toMatchObject({
      status: 504,
      code: 'upstream_timeout',
    });
  });
});

describe('not configured', () => {
  test.each([
    ['dl-a', YT],
    ['dl-b', FB],
    ['dl-c', IG],
  ])('%s → 503 naming UPSTREAM_COBALT_URL, at once', async (endpoint, url) => {
    await s.withApp({ without: ['cobalt'] }, async (bare) => {
      const res = await bare.get({ url }, `downloaders/${endpoint}`).timeout(3000);
      expect(res.status).toBe(503);
      expect(res.body).toEqual({
        success: false,
        error: 'Upstream cobalt is not configured: set UPSTREAM_COBALT_URL',
        code: 'not_configured',
      });
    });
  });
});

describe('client disconnect', () => {
  test('hanging up cancels the cobalt call', async () => {
    await onHungUpstream(
      s,
      (url) => ({ UPSTREAM_COBALT_URL: url }),
      async (hung, server, app) => {
        const ended = await hangUp(`${server}/api/v1/downloaders/dl-a?apikey=${app.key}&url=${encodeURIComponent(YT)}`, hung.requested);
        expect(ended).toMatchObject({ name: 'AbortError' });
        expect(await hung.closedWithin(5000)).toBe(true);
      },
    );
  });
});
