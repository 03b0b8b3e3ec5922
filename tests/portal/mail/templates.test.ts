// The message templates (portal/mail/templates/): every kind has a subject, a plain-text part and an HTML
// part; values a user typed reach the HTML escaped and the text as they are; links are in both parts.
import { TEMPLATES, type MailData, type MailKind } from '../../../portal/mail/templates/index.js';
import { Mailer } from '../../../portal/mail/mailer.js';

const site = { serviceName: 'Utility <API>', publicUrl: 'https://api.example.com' };
const hostile = '<img src=x onerror=alert(1)> & "quotes"';
const escaped = '&lt;img src=x onerror=alert(1)&gt; &amp; &quot;quotes&quot;';
const link = 'https://api.example.com/x?token=abc&y=1';

const samples: { [K in MailKind]: MailData[K] } = {
  'verify-email': { link, hours: 24 },
  'password-reset': { name: hostile, link, minutes: 60 },
  'email-change-confirm': { name: hostile, link, hours: 24 },
  'email-change-notice': { name: hostile, to: `new${hostile}@example.com` },
  'key-created': { name: hostile, keyName: hostile, hint: 'uua_ab…yz', plan: 'premium', at: '2026-11-26T10:15:30.000Z' },
  'quota-warning': { name: hostile, plan: 'premium', limit: 5000, used: 4000, resetAt: '2026-11-27T00:00:00.000Z' },
  'quota-exhausted': { name: hostile, plan: 'premium', limit: 5000, used: 5000, resetAt: '2026-11-27T00:00:00.000Z' },
  'signup-existing': {},
  'upgrade-decided': { name: hostile, plan: 'Premium', approved: false, reason: hostile },
  'upgrade-requested': { name: hostile, asker: hostile, email: 'ada@example.com', from: 'Free', to: 'Premium', message: hostile },
  'upstream-alert': { name: hostile, title: 'Upstream pokeapi is failing: its circuit breaker opened', detail: hostile },
  'payment-failed': { name: hostile, plan: 'Premium', nextRetryAt: '2026-11-29T10:00:00.000Z', invoiceUrl: link },
  'factor-added': { name: hostile, factor: `the passkey “${hostile}”`, at: '2026-11-26T10:15:30.000Z' },
  'factor-removed': { name: hostile, factor: 'every sign-in factor', byAdmin: true, at: '2026-11-26T10:15:30.000Z' },
};

/** Sent to an address nobody has confirmed yet (a sign-up's, or a taken one's whose account may be unconfirmed). */
const UNCONFIRMED: MailKind[] = ['verify-email', 'signup-existing'];

describe.each(Object.keys(TEMPLATES) as MailKind[])('%s', (kind) => {
  const render = () =>
    (TEMPLATES[kind] as (d: unknown, s: typeof site) => ReturnType<(typeof TEMPLATES)['verify-email']>)(samples[kind], site);

  test('subject, text and HTML; what users typed is escaped in the HTML only', () => {
    const m = render();
    expect(m.subject.length).toBeGreaterThan(10);
    expect(m.subject).not.toMatch(/[\r\n]/);
    if (UNCONFIRMED.includes(kind)) {
      // To an address not known to be the account's: no text whoever signed up chose.
      expect(m.text).toContain('Hello,');
      expect(m.html.value).toContain('<p>Hello,</p>');
    } else {
      expect(m.text).toContain(`Hello ${hostile},`);
      expect(m.html.value).toContain(`Hello ${escaped},`);
    }
    expect(m.html.value).toMatch(/^<!doctype html>/);
    expect(m.html.value).not.toContain('<img');
    expect(m.html.value).toContain('Utility &lt;API&gt;');
    // Why the message came, in both parts.
    expect(m.text).toMatch(/You get this message/);
    expect(m.html.value).toMatch(/You get this message/);
  });
});

test('links are in both parts, escaped as attribute values in the HTML', () => {
  for (const kind of ['verify-email', 'password-reset', 'email-change-confirm'] as const) {
    const m = TEMPLATES[kind](samples[kind] as never, site);
    expect(m.text).toContain(link);
    expect(m.html.value).toContain('href="https://api.example.com/x?token=abc&amp;y=1"');
  }
  expect(TEMPLATES['signup-existing'](samples['signup-existing'], site).text).toContain('https://api.example.com/login/forgot');
  const quota = TEMPLATES['quota-warning'](samples['quota-warning'], site);
  expect(quota.text).toContain('https://api.example.com/dashboard/usage');
  expect(quota.text).toContain('https://api.example.com/account#alerts');
  expect(TEMPLATES['key-created'](samples['key-created'], site).html.value).toContain('href="https://api.example.com/dashboard"');
});

test('the figures of each message', () => {
  expect(TEMPLATES['quota-warning'](samples['quota-warning'], site).subject).toBe('Utility <API>: 80% of your API allowance used');
  expect(TEMPLATES['quota-warning'](samples['quota-warning'], site).text).toContain(
    'Your premium plan has used 4000 of its 5000 requests in the current window, which resets at 2026-11-27 00:00 UTC.',
  );
  expect(TEMPLATES['quota-exhausted'](samples['quota-exhausted'], site).subject).toBe('Utility <API>: your API allowance is used up');
  expect(TEMPLATES['quota-exhausted'](samples['quota-exhausted'], site).text).toContain(
    'refused (HTTP 429) until it resets at 2026-11-27 00:00 UTC',
  );
  const key = TEMPLATES['key-created'](samples['key-created'], site);
  expect(key.text).toContain('uua_ab…yz');
  expect(key.text).toContain('2026-11-26 10:15 UTC');
  expect(key.html.value).toContain(`<strong>${escaped}</strong> <code>uua_ab…yz</code>`);
  expect(TEMPLATES['password-reset'](samples['password-reset'], site).text).toContain('for 60 minutes');
  expect(TEMPLATES['email-change-notice'](samples['email-change-notice'], site).html.value).toContain(`new${escaped}@example.com`);
});

test('the mailer sends what the template made, from MAIL_FROM; a failing transport is logged and answered false', async () => {
  const sent: unknown[] = [];
  const logged: string[] = [];
  const log = { info: () => {}, warn: (o: object, msg: string) => logged.push(`${msg} ${JSON.stringify(o)}`) };
  const ok = new Mailer({ sendMail: async (m) => sent.push(m) }, 'API <api@example.com>', site, log as never);
  expect(await ok.send('signup-existing', 'ada@example.com', {})).toBe(true);
  const m = TEMPLATES['signup-existing']({}, site);
  expect(sent).toEqual([{ from: 'API <api@example.com>', to: 'ada@example.com', subject: m.subject, text: m.text, html: m.html.value }]);

  const failing = new Mailer({ sendMail: () => Promise.reject(new Error('connection refused')) }, 'api@example.com', site, log as never);
  expect(await failing.send('signup-existing', 'ada@example.com', {})).toBe(false);
  expect(logged).toEqual(['mail: cannot send {"mail":"signup-existing","err":"connection refused"}']);
});
