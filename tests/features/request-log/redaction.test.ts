// The request log never keeps a credential: an API key, an `upstream_key` (a catalog parameter marked
// secret), a password-like field and a token sent in the query, a JSON body, a form or the headers are read
// back from the table raw (node:sqlite, not through the code that wrote them) and are not there, while the
// call's other parameters are. Values are capped at 8 KB; uploads keep name, type and size only.
import fs from 'node:fs';
import path from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import request from 'supertest';
import { appForTests, KEYS } from '../../helpers/app.js';
import { keptParams, REDACTED } from '../../../features/request-log/redact.js';
import { readCalls } from '../../../engine/db/tables/request-log-calls.js';

const t = appForTests({ UPSTREAM_POLLINATIONS_URL: 'off' });

const SECRETS = {
  upstreamKey: 'sk-upstream-secret-4815162342',
  password: 'hunter2-password-secret',
  token: 'tok-bearer-secret-0001',
  session: 'session-cookie-secret-77',
  bearer: 'authorization-header-secret-9',
};

/** Every batch of the table as the database holds it, its calls read from their file (as bytes, and as latin1 text). */
function rawBatches(): Record<string, unknown>[] {
  const db = new DatabaseSync(path.join(t.dataDir, 'uua.sqlite'), { readOnly: true });
  try {
    return db
      .prepare('SELECT * FROM request_log_batch')
      .all()
      .map((b) => {
        expect(b.calls_file).toMatch(/^\d+-[0-9a-f]+\.calls$/);
        const at = Number(b.calls_at);
        const bytes = fs.readFileSync(path.join(t.dataDir, 'request-log', String(b.calls_file))).subarray(at, at + Number(b.calls_bytes));
        return { ...b, bytes, calls: bytes.toString('latin1') };
      });
  } finally {
    db.close();
  }
}

/** Every call of every batch, read from the batches' bytes by their reader (engine/db/tables/request-log-calls.ts). */
function rawRows(): Record<string, unknown>[] {
  return rawBatches().flatMap((b) =>
    readCalls(b.bytes as Buffer).calls.map((c) => ({ request_id: c.requestId, ip: c.ip, params: c.params, uploads: c.uploads, call: c })),
  );
}

test('keys, upstream_key, passwords and tokens in the query, body and headers never reach the table', async () => {
  const get = await request(t.app)
    .get('/api/v1/tools/ccgen')
    .query({ apikey: KEYS.premium, bin: '457173', password: SECRETS.password, access_token: SECRETS.token })
    .set('Authorization', `Bearer ${SECRETS.bearer}`)
    .set('Cookie', `sid=${SECRETS.session}`);
  expect(get.status).toBe(200);
  const json = await request(t.app)
    .post('/api/v1/gen-models/chat-01')
    .set('X-API-Key', KEYS.premium)
    .send({ q: `my key is ${KEYS.premium}, keep it safe`, upstream_key: SECRETS.upstreamKey, user_password: SECRETS.password });
  expect(json.status).toBe(503);
  const form = await request(t.app)
    .post('/api/v1/gen-models/chat-01')
    .type('form')
    .send({ apikey: KEYS.enterprise, q: 'hello', upstream_key: SECRETS.upstreamKey, session_token: SECRETS.token });
  expect(form.status).toBe(503);
  await t.api.requestLog!.flush();

  const rows = rawRows();
  const ours = rows.filter((r) => [get, json, form].some((res) => res.headers['x-request-id'] === r.request_id));
  expect(ours).toHaveLength(3);
  const everything = JSON.stringify(rawBatches().map(({ bytes: _, ...b }) => b));
  // Nor anywhere in the files the calls are in, or the database's own (its write-ahead log included).
  const files = [
    ...fs.readdirSync(path.join(t.dataDir, 'request-log')).map((f) => path.join(t.dataDir, 'request-log', f)),
    ...fs
      .readdirSync(t.dataDir)
      .filter((f) => f.startsWith('uua.sqlite'))
      .map((f) => path.join(t.dataDir, f)),
  ];
  const stored = files.map((f) => fs.readFileSync(f, 'latin1')).join('\n');
  for (const secret of [...Object.values(SECRETS), KEYS.premium, KEYS.enterprise]) {
    expect(everything).not.toContain(secret);
    expect(stored).not.toContain(secret);
  }
  // What is not a secret is kept, and the secrets' places say so.
  const byId = (res: { headers: Record<string, string> }) =>
    JSON.parse(String(ours.find((r) => r.request_id === res.headers['x-request-id'])!.params));
  expect(byId(get)).toEqual({ apikey: '[redacted]', bin: '457173', password: '[redacted]', access_token: '[redacted]' });
  expect(byId(json)).toEqual({ q: 'my key is [redacted], keep it safe', upstream_key: '[redacted]', user_password: '[redacted]' });
  expect(byId(form)).toMatchObject({ apikey: '[redacted]', q: 'hello', upstream_key: '[redacted]', session_token: '[redacted]' });
});

test('the parameters are capped at 8 KB, the cut ones named', async () => {
  const long = 'x'.repeat(20_000);
  const res = await request(t.app).post('/api/v1/gen-models/chat-01').set('X-API-Key', KEYS.premium).send({ q: 'hello', note: long });
  await t.api.requestLog!.flush();
  const row = rawRows().find((r) => r.request_id === res.headers['x-request-id'])!;
  expect(Buffer.byteLength(String(row.params))).toBeLessThanOrEqual(8 * 1024);
  const params = JSON.parse(String(row.params));
  expect(params.q).toBe('hello');
  expect(params['[truncated]']).toEqual(['note']);
});

test('an upload is kept as its name, type and size, never its bytes', async () => {
  const bytes = Buffer.from('secret file body that must not be logged');
  const res = await request(t.app)
    .post('/api/v1/cloud-storage/file-host')
    .set('X-API-Key', KEYS.premium)
    .attach('file', bytes, { filename: 'notes.txt', contentType: 'text/plain' });
  await t.api.requestLog!.flush();
  const row = rawRows().find((r) => r.request_id === res.headers['x-request-id'])!;
  expect(JSON.parse(String(row.uploads))).toEqual([{ field: 'file', name: 'notes.txt', type: 'text/plain', size: bytes.length }]);
  expect(JSON.stringify(row)).not.toContain('secret file body');
});

test('the client address is kept truncated', async () => {
  const res = await request(t.app).get('/api/v1/tools/ccgen').query({ bin: '457173' }).set('X-API-Key', KEYS.premium);
  await t.api.requestLog!.flush();
  const row = rawRows().find((r) => r.request_id === res.headers['x-request-id'])!;
  expect(row.ip).toMatch(/^(127\.0\.0\.0|0:0:0::)$/);
});

test('parameters that are all texts (the short way) are kept as those of any other shape are', () => {
  const presented = ['caller-key-0001'];
  const flat = { apikey: 'caller-key-0001', q: 'say "hi"\n', 'User-Password': 'x', note: 'sent caller-key-0001 here', ü: 'ünïcödé' };
  const kept = { apikey: REDACTED, q: 'say "hi"\n', 'User-Password': REDACTED, note: `sent ${REDACTED} here`, ü: 'ünïcödé' };
  expect(keptParams(flat, new Set(), presented)).toEqual(kept);
  // One value that is not a text takes the other way: the same texts come out the same.
  expect(keptParams({ ...flat, n: ['a', 'b'] }, new Set(), presented)).toEqual({ ...kept, n: ['a', 'b'] });
  expect(keptParams({ bin: '457173', card: '4111' }, new Set(['card']), presented)).toEqual({ bin: '457173', card: REDACTED });
});
