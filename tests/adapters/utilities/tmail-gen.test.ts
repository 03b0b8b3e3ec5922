// utilities/tmail-gen against a loopback mail.tm: domains (Hydra or a plain array, inactive ones skipped),
// an account with a random address and password, a retry on 422 (address taken), the token; never cached,
// secrets never logged; failures of each step, a bounded number of flows in flight, slowness.
import fs from 'node:fs';
import pino from 'pino';
import request from 'supertest';
import type { FakeRequest, FakeResponse } from '../../helpers/fake-upstream.js';
import { upstreamSuite, withUpstreams, type Caller, type FakeSpec } from '../../helpers/upstream-suite.js';
import { expectAnswer, expectMatchesSchema } from '../../helpers/schema.js';
import { expectNeverCached } from '../../helpers/cache-checks.js';
import { expectFailure } from '../../helpers/upstream-failures.js';
import { expectUpstreamTimeout } from '../../helpers/short-timeout.js';
import { createApp } from '../../../server/app.js';
import tmailGen from '../../../adapters/utilities/tmail-gen.js';
import { logSink } from '../../helpers/log-sink.js';

const PATH = '/api/v1/utilities/tmail-gen';

/** Per-step overrides: answer of GET /domains, POST /accounts (a queue), POST /token. */
let domainsAnswer: () => FakeResponse;
let accountAnswers: FakeResponse[];
let tokenAnswer: (r: FakeRequest) => FakeResponse;

const s = upstreamSuite({
  endpoint: 'utilities/tmail-gen',
  upstreams: {
    mailtm: {
      routes: {
        'GET /domains': () => domainsAnswer(),
        'POST /accounts': (r) => {
          const next = accountAnswers.shift();
          if (next) return next;
          const { address } = r.json() as { address: string };
          return { status: 201, json: { ...fixture('account-created.json'), address } };
        },
        'POST /token': (r) => tokenAnswer(r),
      },
    },
  },
});
const { fake, fixture } = s;
/** A mail.tm of its own, on a new address (and an app of its own: the domain list is memoised per app). */
const freshMailtm = (mailtm: FakeSpec) => ({ endpoint: 'utilities/tmail-gen', upstreams: { mailtm } });

function reset() {
  domainsAnswer = () => ({ json: fixture('domains-hydra.json') });
  accountAnswers = [];
  tokenAnswer = () => ({ json: fixture('token.json') });
}
beforeEach(reset);

/** A fresh app per test. */
const withApp = (fn: (t: Caller) => Promise<void>) => s.withApp({}, fn);
const get = (t: Caller) => t.get();

describe('a new mailbox', () => {
  test('address on an active domain, random password, token, inbox instructions', async () => {
    await withApp(async (t) => {
      const res = await get(t);
      expectAnswer(res, 'mailtm');
      const d = res.body.data;
      expectMatchesSchema('utilities/tmail-gen', d);
      expect(d.address).toMatch(/^[a-z0-9]{10}@punkproof\.com$/);
      expect(d.password.length).toBeGreaterThanOrEqual(20);
      expect(d.token).toBe(fixture('token.json').token);
      expect(d.inbox).toEqual({ list: `GET ${fake.url}/messages`, read: `GET ${fake.url}/messages/{id}`, auth: `Bearer ${d.token}` });
      const account = fake.calls.find((c) => c.path === '/accounts')!;
      const token = fake.calls.find((c) => c.path === '/token')!;
      expect(account.json()).toEqual({ address: d.address, password: d.password });
      expect(token.json()).toEqual({ address: d.address, password: d.password });
    });
  });

  test('two calls: two different mailboxes, neither cached', async () => {
    await withApp(async (t) => {
      const a = await get(t);
      const b = await get(t);
      expect(a.body.data.address).not.toBe(b.body.data.address);
      expect(a.body.data.password).not.toBe(b.body.data.password);
      await expectNeverCached({ t: t.t, path: PATH, query: {}, upstreamCalls: () => fake.calls.filter((c) => c.path === '/token').length });
    });
  });

  test('a plain-array domain list works too', async () => {
    // The domain list is memoised per app: a world of its own stands for a fresh mail.tm.
    const other = {
      routes: {
        'GET /domains': () => ({ json: fixture('domains-array.json') }),
        'POST /accounts': () => ({ status: 201, json: fixture('account-created.json') }),
        'POST /token': () => ({ json: fixture('token.json') }),
      },
    };
    await withUpstreams(freshMailtm(other), async (t) => {
      const res = await get(t);
      expect(res.status).toBe(200);
      expect(res.body.data.address).toMatch(/@punkproof\.com$/);
      expect(t.fake.calls.map((c) => c.path)).toEqual(['/domains', '/accounts', '/token']);
    });
  });

  test('422 (address taken) → another address is tried', async () => {
    accountAnswers = [{ status: 422, json: fixture('address-taken.json') }];
    await withApp(async (t) => {
      const res = await get(t);
      expect(res.status).toBe(200);
      const tried = fake.calls.filter((c) => c.path === '/accounts').map((c) => (c.json() as { address: string }).address);
      expect(tried).toHaveLength(2);
      expect(tried[0]).not.toBe(tried[1]);
      expect(res.body.data.address).toBe(tried[1]);
    });
  });

  test('the secrets never reach the logs', async () => {
    const { lines, sink } = logSink();
    const api = await createApp(
      {
        DATA_DIR: fs.mkdtempSync('/tmp/uua-tmail-'),
        FREE_KEY: 'free-k',
        ANONYMOUS_KEY: 'anon-k',
        UPSTREAM_MAILTM_URL: fake.url,
        LOG_LEVEL: 'debug',
      },
      { log: pino({ level: 'debug' }, sink) },
    );
    try {
      const res = await request(api.app).get(PATH).query({ apikey: 'free-k' });
      expect(res.status).toBe(200);
      const logged = lines.join('');
      expect(logged).toContain('tmail-gen');
      for (const secret of [res.body.data.password, res.body.data.token]) expect(logged).not.toContain(secret);
    } finally {
      await api.close();
    }
  });
});

describe('failures', () => {
  test('422 three times → 502', async () => {
    accountAnswers = [1, 2, 3].map(() => ({ status: 422, json: fixture('address-taken.json') }));
    await withApp(async (t) => {
      const res = await get(t);
      expectFailure(res, { status: 502, code: 'upstream_failed' });
      expect(res.body.error).toBe('The mail provider refused every new address');
    });
  });

  test('429 from mail.tm (8 requests/s per IP) → 503 with Retry-After', async () => {
    accountAnswers = [{ status: 429, headers: { 'retry-after': '2' }, json: { message: 'Too many requests' } }];
    await withApp(async (t) => expectFailure(await get(t), { status: 503, code: 'upstream_busy' }));
  });

  test('5xx creating the account → 502; a token answer without token → 502', async () => {
    accountAnswers = [{ status: 500, json: { message: 'Internal Server Error' } }];
    await withApp(async (t) => {
      expectFailure(await get(t), { status: 502, code: 'upstream_failed' });
      tokenAnswer = () => ({ json: { code: 401, message: 'Invalid credentials.' } });
      expectFailure(await get(t), { status: 502, code: 'upstream_changed' });
    });
  });

  test('no active domain, or a domain list of the wrong shape → 502', async () => {
    domainsAnswer = () => ({ json: { 'hydra:member': [{ domain: 'old.example', isActive: false }] } });
    // The list is memoised per app: a world of its own stands for a fresh mail.tm.
    await withUpstreams(freshMailtm({ fallback: () => domainsAnswer() }), async (t) => {
      expectFailure(await get(t), { status: 502, code: 'upstream_changed' });
      domainsAnswer = () => ({ text: '<html>maintenance</html>', headers: { 'content-type': 'application/json' } });
      expectFailure(await get(t), { status: 502, code: 'upstream_changed' });
    });
  });

  test('slower than the upstream timeout → 504', async () => {
    await withUpstreams(freshMailtm({ fallback: () => ({ json: fixture('domains-hydra.json'), delayMs: 500 }) }), async (slow) => {
      await expectUpstreamTimeout((ctx) => tmailGen({}, ctx), 'mailtm', slow.fake.url, '50ms');
    });
  });
});

describe('pacing', () => {
  test('at most two mailbox creations in flight at once', async () => {
    let now = 0;
    let most = 0;
    // Account creations are held at the fake until two are in flight together (a timer only as the way
    // out should the bound wrongly let one through at a time), then for a little longer, room for a third
    // that the bound should keep out. So the two overlap whatever the pace at which the flows arrive.
    let release!: () => void;
    const held = new Promise<void>((ok) => (release = ok));
    const wayOut = setTimeout(release, 10_000);
    const watcher = {
      routes: {
        'GET /domains': () => ({ json: fixture('domains-hydra.json') }),
        'POST /accounts': async () => {
          most = Math.max(most, ++now);
          if (now === 2) setTimeout(release, 100);
          await held;
          now--;
          return { status: 201, json: fixture('account-created.json') };
        },
        'POST /token': () => ({ json: fixture('token.json') }),
      },
    };
    try {
      // The bound is the mailtm upstream's policy (catalog/upstreams.yaml), on for this world.
      await withUpstreams({ ...freshMailtm(watcher), env: { UPSTREAM_POLICIES: 'on' } }, async (t) => {
        const answers = await Promise.all(Array.from({ length: 5 }, () => get(t)));
        for (const a of answers) expect(a.status).toBe(200);
        expect(most).toBe(2);
      });
    } finally {
      clearTimeout(wayOut);
    }
  });
});
