// One upstream call per link: identical concurrent downloader calls share one provider call (in one
// process, and across two instances on one Redis), a repeat within MEDIA_CACHE_TTL asks nothing, each says
// so in metadata.cached, and the metrics count the calls saved as cache hits. Every caller still gets links
// sealed for their own key.
import request from 'supertest';
import { fakeUpstream, type FakeUpstream } from '../../helpers/fake-upstream.js';
import { onTwoInstances, testApp, KEYS, type TestApp } from '../../helpers/app.js';

const TT = 'https://www.tiktok.com/@scout2015/video/6718335390845095173';
let tikwm: FakeUpstream;

beforeAll(async () => {
  tikwm = await fakeUpstream(() => ({
    delayMs: 300,
    json: {
      code: 0,
      msg: 'success',
      data: { title: 'Scout', play: 'https://v16m.tiktokcdn.com/v/1.mp4?exp=1', author: { unique_id: 'scout' } },
    },
  }));
});
afterAll(() => tikwm.close());
beforeEach(() => {
  tikwm.calls.length = 0;
});

const env = () => ({ UPSTREAM_TIKWM_URL: tikwm.url, MEDIA_CACHE_TTL: '10m' });
const ask = (t: TestApp, url = TT, key = t.key) => request(t.app).get('/api/v1/downloaders/dl-d').query({ apikey: key, url });

describe('in one process', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await testApp(env());
  });
  afterAll(() => t.close());

  test('ten identical concurrent calls make one upstream call; nine say they were served from it', async () => {
    const url = `${TT}?a=1`;
    const answers = await Promise.all(Array.from({ length: 10 }, (_, i) => ask(t, url, i % 2 ? KEYS.enterprise : KEYS.premium)));
    expect(answers.map((r) => r.status)).toEqual(Array(10).fill(200));
    expect(tikwm.calls).toHaveLength(1);
    expect(answers.filter((r) => r.body.metadata.cached === true)).toHaveLength(9);
    // One provider answer, each caller's own links.
    expect(new Set(answers.map((r) => r.body.data.medias[0].sourceUrl)).size).toBe(1);
    expect(new Set(answers.map((r) => r.body.data.medias[0].url)).size).toBe(10);
  });

  test('a repeat within MEDIA_CACHE_TTL makes none, and the metrics count it saved', async () => {
    const url = `${TT}?a=2`;
    const hits = async () => {
      const text = (await request(t.app).get('/metrics')).text;
      return Number(/^uua_cache_requests_total\{result="hit"\} (\d+)$/m.exec(text)?.[1] ?? 0);
    };
    const before = await hits();
    expect((await ask(t, url)).body.metadata.cached).toBe(false);
    const again = await ask(t, url);
    expect(again.status).toBe(200);
    expect(again.body.metadata.cached).toBe(true);
    expect(tikwm.calls).toHaveLength(1);
    expect((await hits()) - before).toBe(1);
  });

  test('another link is its own call', async () => {
    await ask(t, `${TT}?a=3`);
    await ask(t, `${TT}?a=4`);
    expect(tikwm.calls).toHaveLength(2);
  });
});

test('MEDIA_CACHE_TTL=off: every call asks the provider', async () => {
  const t = await testApp({ ...env(), MEDIA_CACHE_TTL: 'off' });
  try {
    await ask(t);
    const second = await ask(t);
    expect(second.body.metadata.cached).toBe(false);
    expect(tikwm.calls).toHaveLength(2);
  } finally {
    await t.close();
  }
});

test('two instances on one Redis: ten concurrent calls, five to each, make one upstream call', async () => {
  await onTwoInstances(async (x, y) => {
    const url = `${TT}?b=1`;
    const answers = await Promise.all(Array.from({ length: 10 }, (_, i) => ask(i % 2 ? x : y, url)));
    expect(answers.map((r) => r.status)).toEqual(Array(10).fill(200));
    expect(tikwm.calls).toHaveLength(1);
    expect(answers.filter((r) => r.body.metadata.cached === true)).toHaveLength(9);
  }, env());
});
