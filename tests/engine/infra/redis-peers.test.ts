// The instances sharing a Redis are counted by their heartbeats, on Redis's clock; one that leaves takes
// itself out; without an answer the count stays what it was (the one an outage's share is taken from).
import crypto from 'node:crypto';
import pino from 'pino';
import { connectRedis, type RedisHandle } from '../../../engine/infra/redis.js';
import { redisAvailable } from '../../helpers/app.js';
import { waitUntil } from '../../helpers/cluster.js';

const log = pino({ level: 'silent' });
let redisUrl: string | undefined;
const handles: RedisHandle[] = [];
beforeAll(async () => {
  redisUrl = await redisAvailable();
});
afterAll(() => Promise.all(handles.map((h) => h.close())));

test('instances on one prefix count each other; one that closes leaves the set; another prefix is apart', async () => {
  if (!redisUrl) return;
  const prefix = `test-${crypto.randomUUID()}:`;
  const [a, b] = [connectRedis(redisUrl, log, prefix), connectRedis(redisUrl, log, prefix)];
  const apart = connectRedis(redisUrl, log, `test-${crypto.randomUUID()}:`);
  handles.push(a, b, apart);
  // The second to beat sees both (the first sees only itself until its next beat).
  await waitUntil('one counts both', () => Math.max(a.peers!(), b.peers!()) === 2, 3000);
  expect(apart.peers!()).toBe(1);
  expect(await a.client.zCard(`${prefix}instances`)).toBe(2);
  await b.close();
  expect(await a.client.zCard(`${prefix}instances`)).toBe(1);
});

test('without a prefix nothing is counted: one instance', () => {
  if (!redisUrl) return;
  const h = connectRedis(redisUrl, log);
  handles.push(h);
  expect(h.peers!()).toBe(1);
});
