// art-design/favicon: URL candidates for a normalised domain; nothing is fetched.
import { upstreamSuite } from '../../helpers/upstream-suite.js';
import { expectAnswer } from '../../helpers/schema.js';

// Embedded: no upstream to fake, only the app.
const s = upstreamSuite({ endpoint: 'art-design/favicon', upstreams: {} });
const get = (domain?: string) => s.get(domain === undefined ? {} : { domain });

test('github.com → icon.horse with Google, DuckDuckGo and /favicon.ico alternatives', async () => {
  const res = await get('github.com');
  expectAnswer(res, 'embedded', 'art-design/favicon');
  expect(res.body.data).toEqual({
    domain: 'github.com',
    favicon: 'https://icon.horse/icon/github.com',
    alternatives: {
      google: 'https://www.google.com/s2/favicons?domain=github.com&sz=64',
      duckduckgo: 'https://icons.duckduckgo.com/ip3/github.com.ico',
      direct: 'https://github.com/favicon.ico',
    },
  });
});

test.each([
  ['https://www.GitHub.com/features?x=1', 'github.com'],
  ['http://github.com:8080/', 'github.com'],
  ['www.github.com/path', 'github.com'],
  ['docs.github.com', 'docs.github.com'],
  ['münchen.de', 'xn--mnchen-3ya.de'],
  ['example.co.uk.', 'example.co.uk'],
])('%s is normalised to %s', async (input, domain) => {
  const res = await get(input);
  expect(res.status).toBe(200);
  expect(res.body.data.domain).toBe(domain);
  expect(res.body.data.favicon).toBe(`https://icon.horse/icon/${domain}`);
});

test.each(['not a domain', 'localhost', '192.168.1.1', 'printer.local', 'javascript:alert(1)'])('%s → 400', async (input) => {
  const res = await get(input);
  expect(res.status).toBe(400);
  expect(res.body.success).toBe(false);
  expect(res.body.error).toMatch(/^Invalid value for domain: must be a (public )?domain name such as example.com$/);
});

test('missing domain → 400 Missing required parameter: domain', async () => {
  const res = await get();
  expect(res.status).toBe(400);
  expect(res.body.error).toBe('Missing required parameter: domain');
});
