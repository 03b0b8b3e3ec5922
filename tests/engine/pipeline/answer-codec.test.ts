// Cached answers are kept serialised (engine/pipeline/respond.ts answerCodec): a hit is spliced into the envelope.
import { jest } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { pino } from 'pino';
import { createClient } from 'redis';
import { answerCodec, type CachedAnswer } from '../../../engine/pipeline/respond.js';
import { createResponseCache } from '../../../engine/upstream/response-cache.js';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const codec = answerCodec<CachedAnswer>();

test('an answer round-trips as its source and its data serialised once', () => {
  const answer: CachedAnswer = { source: 'pokeapi', data: { name: 'pikachu', note: 'two\nlines' } };
  const text = codec.encode(answer);
  expect(text).toBe('pokeapi\n{"name":"pikachu","note":"two\\nlines"}');
  // The producing call keeps the serialised data, so its own answer is not serialised twice.
  expect(answer.dataJson).toBe('{"name":"pikachu","note":"two\\nlines"}');
  expect(codec.decode(text)).toMatchObject({ source: 'pokeapi', dataJson: answer.dataJson });
  expect(() => codec.decode('{"data":{},"source":"pokeapi"}')).toThrow('not a cached answer');
});

test('an entry an older build left in Redis (plain JSON) is a miss, then replaced', async () => {
  const redis = createClient({ url: REDIS_URL });
  await redis.connect();
  const prefix = `test-codec-${randomUUID()}:`;
  try {
    const expires = Date.now() + 60_000;
    await redis.set(`${prefix}k`, `{"e":${expires},"v":{"data":{"old":true},"source":"pokeapi","cacheable":true}}`, {
      expiration: { type: 'PX', value: 60_000 },
    });
    const cache = createResponseCache({ redis, prefix, maxEntries: 10, log: pino({ level: 'silent' }) });
    const fn = jest.fn(async () => ({ value: { source: 'pokeapi', data: { fresh: true } }, cacheable: true }));
    const first = await cache.wrap<CachedAnswer>('k', 60_000, fn, codec);
    expect(first).toMatchObject({ cached: false, value: { data: { fresh: true } } });
    expect(fn).toHaveBeenCalledTimes(1);
    await new Promise((r) => setTimeout(r, 50)); // the write is not awaited by wrap
    expect(await redis.get(`${prefix}k`)).toMatch(/^\{"e":\d+,"v":pokeapi\n\{"fresh":true\}\}$/);
    cache.clear();
    expect(await cache.wrap<CachedAnswer>('k', 60_000, fn, codec)).toMatchObject({ cached: true, value: { dataJson: '{"fresh":true}' } });
    expect(fn).toHaveBeenCalledTimes(1);
  } finally {
    await redis.del(`${prefix}k`);
    await redis.close();
  }
});
