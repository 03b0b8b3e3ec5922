// Logs: one JSON line per request with its request id, endpoint, status and the key's public id; the key
// itself never appears, wherever the caller put it (query string, JSON body, form, header).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pino } from 'pino';
import request from 'supertest';
import { createApp } from '../../../server/app.js';
import { KEYS } from '../../helpers/app.js';
import { logSink } from '../../helpers/log-sink.js';

test('access lines carry ids, never keys', async () => {
  const { lines, sink } = logSink();
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'uua-log-'));
  const keysFile = path.join(dataDir, 'keys.yaml');
  fs.writeFileSync(keysFile, `- { key: ${KEYS.premium}, plan: premium, name: log test }\n`);
  const api = await createApp({ DATA_DIR: dataDir, API_KEYS_FILE: keysFile, LOG_LEVEL: 'debug' }, { log: pino({ level: 'debug' }, sink) });
  try {
    await request(api.app).get('/api/v1/tools/ccgen').query({ apikey: KEYS.premium, bin: '457173' }).set('X-Request-Id', 'req-123');
    await request(api.app).get('/api/v1/tools/ccgen').query({ bin: '457173' }).set('X-API-Key', KEYS.premium);
    await request(api.app).post('/api/v1/cloud-storage/paste-host').send({ apikey: KEYS.premium, paste: 'hello' });
    await request(api.app).post('/api/v1/cloud-storage/paste-host').type('form').send({ apikey: KEYS.premium, paste: 'hello' });
    await request(api.app).get('/api/v1/tools/ccgen').query({ apikey: 'a-wrong-guess-0001', bin: '457173' });
    await new Promise((r) => setImmediate(r));
    const all = lines.join('');
    expect(all).not.toContain(KEYS.premium);
    expect(all).not.toContain('a-wrong-guess-0001');
    const first = lines.map((l) => JSON.parse(l)).find((l) => l.requestId === 'req-123');
    expect(first).toMatchObject({ msg: 'request', endpoint: 'tools/ccgen', status: 200, method: 'GET' });
    expect(first.keyId).toMatch(/^[0-9a-f]{12}$/);
    expect(lines.filter((l) => l.includes('"msg":"request"'))).toHaveLength(5);
  } finally {
    await api.close();
  }
});
