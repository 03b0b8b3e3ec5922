// Builds a real app for a test: its own DATA_DIR, a premium and an enterprise key, no Redis unless asked,
// silent logs, guarded fetches allowed to reach loopback fakes, and sign-ups not throttled (tests make many
// accounts from one address; the throttle's own test sets SIGNUP_LIMIT back), and upstream policies off
// (UPSTREAM_POLICIES; tests of breakers and guards turn them on).
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import http, { type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from 'pino';
import { createApp, type App } from '../../server/app.js';
import { guardEdges } from '../../engine/pipeline/client-error.js';
import { freshPostgresUrl } from './db.js';
import type { ResolveHost } from '../../engine/upstream/guarded-fetch.js';

export const KEYS = {
  premium: 'test-premium-key-0001',
  enterprise: 'test-enterprise-key-0001',
  free: 'test-free-shared-key',
  anonymous: 'test-anonymous-key',
};

export interface TestApp {
  app: App['app'];
  api: App;
  key: string;
  dataDir: string;
  close(): Promise<void>;
}

/** `opts.log` replaces the silent logger (tests that read what was logged). */
export async function testApp(
  env: Record<string, string | undefined> = {},
  opts: { dataDir?: string; adaptersDir?: string; log?: Logger; cold?: boolean; resolve?: ResolveHost } = {},
): Promise<TestApp> {
  const dataDir = opts.dataDir ?? fs.mkdtempSync(path.join(os.tmpdir(), 'uua-test-'));
  const keysFile = path.join(dataDir, 'test-keys.yaml');
  fs.mkdirSync(dataDir, { recursive: true });
  fs.writeFileSync(
    keysFile,
    `- { key: ${KEYS.premium}, plan: premium, name: test premium }\n- { key: ${KEYS.enterprise}, plan: enterprise, name: test enterprise }\n`,
  );
  const api = await createApp(
    {
      DATA_DIR: dataDir,
      API_KEYS_FILE: keysFile,
      FREE_KEY: KEYS.free,
      ANONYMOUS_KEY: KEYS.anonymous,
      LOG_LEVEL: 'silent',
      ALLOW_PRIVATE_FETCH: 'true',
      PUBLIC_URL: 'http://127.0.0.1:3999',
      SIGNUP_LIMIT: '100000',
      // Tests replay one failure after another on one app: breakers and holds would answer for the upstream.
      // The policies' own tests (and adapters' guard tests) set it back to on.
      UPSTREAM_POLICIES: 'off',
      // Media answers would fetch the first bytes of each file their fixtures name (real CDN hosts): the
      // tests of those facts set it back to true, with a CDN on loopback.
      MEDIA_FACTS: 'false',
      // Off by default (its writes cost the API path: docs/decisions/request-log.md); the tests record calls.
      REQUEST_LOG: 'on',
      ...env,
    },
    { adaptersDir: opts.adaptersDir, log: opts.log, resolve: opts.resolve },
  );
  // The pages as the server has them once warm: the portal's start-up work (the first admin) done.
  // `cold`: as the server is the moment it listens (tests of the warm-up itself).
  if (!opts.cold) await api.ready();
  return { app: api.app, api, key: KEYS.premium, dataDir, close: () => api.close() };
}

/**
 * One app for the tests of the file, or of the describe, that calls this: started before the first and
 * closed after the last (the two hooks each such file wrote out). Its fields read the running app: read
 * them in a test or a hook, not while the file loads.
 */
export function appForTests(env: Record<string, string | undefined> = {}): TestApp {
  let running: TestApp | undefined;
  beforeAll(async () => {
    running = await testApp(env);
  });
  afterAll(async () => {
    await running?.close();
  });
  const now = () => {
    if (!running) throw new Error('the app starts in beforeAll: read it in a test or a hook');
    return running;
  };
  return {
    get app() {
      return now().app;
    },
    get api() {
      return now().api;
    },
    get key() {
      return now().key;
    },
    get dataDir() {
      return now().dataDir;
    },
    close: () => now().close(),
  };
}

/**
 * Serves the app on a loopback port with the edges of server/main.ts; `bodyIdleMs` shortens the idle time
 * for a test, `port` names the port (a test whose PUBLIC_URL must name it before the app starts).
 */
export async function listen(
  app: App['app'],
  opts: { bodyIdleMs?: number; port?: number } = {},
): Promise<{ url: string; server: Server; close(): Promise<void> }> {
  const server = http.createServer(app).listen(opts.port ?? 0, '127.0.0.1');
  guardEdges(server, { bodyIdleMs: opts.bodyIdleMs ?? 30_000, requestMs: 5 * 60_000 });
  await new Promise((resolve) => server.once('listening', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    server,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A loopback port free now (for a PUBLIC_URL that must name the port before the app listens). */
export async function freePort(): Promise<number> {
  const probe = http.createServer().listen(0, '127.0.0.1');
  await new Promise((resolve) => probe.once('listening', resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

/** Whether Redis at REDIS_URL (default 127.0.0.1:6379) answers; under CI=true its absence is a failure. */
export async function redisAvailable(): Promise<string | undefined> {
  const url = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
  const { createClient } = await import('redis');
  const c = createClient({ url, socket: { connectTimeout: 500, reconnectStrategy: false } });
  c.on('error', () => {});
  try {
    await c.connect();
    await c.ping();
    await c.close();
    return url;
  } catch {
    if (process.env.CI === 'true') throw new Error(`Redis is required under CI=true but ${url} does not answer`);
    console.warn(`Redis at ${url} does not answer: Redis tests skipped`);
    return undefined;
  }
}

/**
 * Two instances on one Redis under a fresh prefix and one PostgreSQL schema, for what they must share (skipped
 * without Redis or PostgreSQL outside CI).
 */
export async function onTwoInstances(run: (x: TestApp, y: TestApp) => Promise<void>, env: Record<string, string> = {}): Promise<void> {
  const redisUrl = await redisAvailable();
  const databaseUrl = await freshPostgresUrl();
  if (!redisUrl || !databaseUrl) return;
  const shared = { REDIS_URL: redisUrl, REDIS_PREFIX: `test-${crypto.randomUUID()}:`, DATABASE_URL: databaseUrl, ...env };
  const x = await testApp(shared);
  const y = await testApp(shared);
  try {
    await run(x, y);
  } finally {
    await x.close();
    await y.close();
  }
}
