// The shared Redis client. Commands fail fast while disconnected (no offline queue), so an outage never
// makes requests hang; the client reconnects by itself and /health reports the state.
import { createRequire } from 'node:module';
import type { RedisClientType, createClient as CreateClient } from 'redis';
import type { Logger } from 'pino';
import { countPeers } from './redis-peers.js';

// Required when a Redis is configured, not at boot: the client costs about half a second to load, and an
// instance without REDIS_URL never needs it.
const redisClient = (): typeof CreateClient =>
  (createRequire(import.meta.url)('redis') as { createClient: typeof CreateClient }).createClient;

export interface RedisHealth {
  /** True while the client is connected and ready. */
  ready(): boolean;
  /** Called on every failed Redis call, so /health can show it. */
  failed(err: unknown): void;
  /** Instances sharing this Redis lately, this one included (engine/infra/redis-peers.ts); 1 when not counted. */
  peers?(): number;
}

export interface RedisHandle extends RedisHealth {
  client: RedisClientType;
  lastError(): string | undefined;
  /** Resolves when connected, or after `ms` whatever the state. */
  whenReady(ms: number): Promise<void>;
  close(): Promise<void>;
}

/** `prefix`: REDIS_PREFIX, under which the instances sharing this Redis are counted (none without it). */
export function connectRedis(url: string, log: Logger, prefix?: string): RedisHandle {
  const client = redisClient()({
    url,
    disableOfflineQueue: true,
    socket: { connectTimeout: 1000, reconnectStrategy: (retries: number) => Math.min(100 * 2 ** retries, 2000) },
  }) as RedisClientType;
  let last: string | undefined;
  let down = false;
  client.on('error', (err: Error) => {
    last = err.message;
    if (!down) log.warn({ err: err.message }, 'redis unavailable: serving with in-process counters and cache');
    down = true;
  });
  client.on('ready', () => {
    if (down) log.info('redis connection restored');
    down = false;
    last = undefined;
  });
  client.connect().catch((err: Error) => {
    last = err.message;
  });
  const peers = prefix === undefined ? undefined : countPeers(client, prefix);
  return {
    client,
    ready: () => client.isReady,
    peers: () => peers?.count() ?? 1,
    failed: (err) => {
      last = (err as Error)?.message ?? String(err);
    },
    lastError: () => last,
    whenReady: (ms) =>
      new Promise<void>((resolve) => {
        if (client.isReady) return resolve();
        const timer = setTimeout(resolve, ms);
        client.once('ready', () => {
          clearTimeout(timer);
          resolve();
        });
      }),
    async close() {
      await peers?.stop();
      try {
        if (client.isOpen) await client.close();
      } catch {
        client.destroy();
      }
    },
  };
}

/**
 * `reply`, or a rejection once `ms` have passed without it. node-redis bounds a command's wait only until
 * it is written; a Redis that stops answering without closing the connection (paused, swapping, packets
 * dropped) would otherwise keep its callers waiting for as long as the connection stays open.
 */
export function answeredWithin<T>(reply: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`redis ${what} took longer than ${ms} ms`)), ms);
  });
  return Promise.race([reply, late]).finally(() => clearTimeout(timer));
}
