// What a caller may type as a domain (engine/catalog/domain.ts), and the catalog's `format: domain`, which reads it
// the same way: a value the validator lets through is one the adapters can use, and the other way round.
import request from 'supertest';
import { hostOfDomain } from '../../../engine/catalog/domain.js';
import { testApp, KEYS, type TestApp } from '../../helpers/app.js';

const READ: Array<[string, string | undefined]> = [
  ['example.com', 'example.com'],
  ['  Shop.Example.COM.  ', 'shop.example.com'],
  ['https://www.shop.example/path?x=1', 'www.shop.example'],
  ['http://user:pw@shop.example:8443/', 'shop.example'],
  ['shop.example:443', 'shop.example'],
  ['bücher.example', 'xn--bcher-kva.example'],
  ['site.xn--p1ai', 'site.xn--p1ai'],
  ['ftp://example.com', undefined],
  ['mailto://example.com', undefined],
  ['example.c', undefined],
  ['example.1ab', undefined],
  ['1.2.3.4', undefined],
  ['[::1]', undefined],
  ['localhost', undefined],
  ['exa mple.com', undefined],
  ['-bad.example', undefined],
  ['', undefined],
];

test.each(READ)('hostOfDomain(%j) is %j', (input, host) => {
  expect(hostOfDomain(input)).toBe(host);
});

test('www. is dropped only when asked', () => {
  expect(hostOfDomain('www.example.com', { stripWww: true })).toBe('example.com');
  expect(hostOfDomain('www.example.com')).toBe('www.example.com');
});

describe('format: domain (utilities/phish-check, embedded)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await testApp();
  });
  afterAll(async () => {
    await t.close();
  });

  test.each(READ.filter(([input]) => input !== ''))('%j is let through exactly when it has a host', async (input, host) => {
    const res = await request(t.app).get('/api/v1/utilities/phish-check').query({ apikey: KEYS.premium, domain: input });
    if (host === undefined) {
      expect(res.status).toBe(400);
      expect(res.body.error).toBe('Invalid value for domain: must be a domain name such as example.com');
    } else {
      expect(res.status).toBe(200);
    }
  });
});
