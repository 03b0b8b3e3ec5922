// Standard Webhooks signatures (portal/webhooks/signing.ts): the known vector of the specification's own
// JavaScript library, and every signature checked by the `standardwebhooks` package, which we did not write.
import { Webhook } from 'standardwebhooks';
import { messageId, newSecret, secretText, sign, signedHeaders } from '../../../portal/webhooks/signing.js';

// From the standard-webhooks repository's libraries/javascript/src/webhook.test.ts ("sign function works").
const VECTOR = {
  secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
  id: 'msg_p5jXN8AQM9LWM0D4loKWxJek',
  timestamp: 1614265330,
  body: '{"test": 2432232314}',
  signature: 'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=',
};

test('the known vector: v1 and the base64 HMAC-SHA256 of "id.timestamp.body", with or without whsec_', () => {
  expect(sign(VECTOR.secret, VECTOR.id, VECTOR.timestamp, VECTOR.body)).toBe(VECTOR.signature);
  expect(sign(VECTOR.secret.slice('whsec_'.length), VECTOR.id, VECTOR.timestamp, VECTOR.body)).toBe(VECTOR.signature);
  expect(sign(VECTOR.secret, VECTOR.id, VECTOR.timestamp + 1, VECTOR.body)).not.toBe(VECTOR.signature);
  expect(sign(VECTOR.secret, VECTOR.id, VECTOR.timestamp, `${VECTOR.body} `)).not.toBe(VECTOR.signature);
});

test('a new secret is 32 random bytes, shown as whsec_<base64>; message ids never hold a dot', () => {
  const a = newSecret();
  expect(Buffer.from(a, 'base64')).toHaveLength(32);
  expect(a).not.toBe(newSecret());
  expect(secretText(a)).toBe(`whsec_${a}`);
  const ids = Array.from({ length: 50 }, messageId);
  for (const id of ids) expect(id).toMatch(/^msg_[A-Za-z0-9_-]{22}$/);
  expect(new Set(ids).size).toBe(50);
});

test('the headers verify with the standardwebhooks package, under each of two secrets (a roll), and not under another', () => {
  const now = Math.floor(Date.now() / 1000);
  const [current, previous] = [newSecret(), newSecret()];
  const body = JSON.stringify({ type: 'key.created', timestamp: new Date().toISOString(), data: { name: 'ünïcode ✓' } });
  const headers = signedHeaders([current, previous], messageId(), now, body);
  expect(headers['webhook-timestamp']).toBe(String(now));
  expect(headers['webhook-signature'].split(' ')).toHaveLength(2);
  expect(new Webhook(secretText(current)).verify(body, headers)).toEqual(JSON.parse(body));
  expect(new Webhook(secretText(previous)).verify(body, headers)).toEqual(JSON.parse(body));
  expect(() => new Webhook(secretText(newSecret())).verify(body, headers)).toThrow();
  expect(() => new Webhook(secretText(current)).verify(body.replace('✓', 'x'), headers)).toThrow();
});
