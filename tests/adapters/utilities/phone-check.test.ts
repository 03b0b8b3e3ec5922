// utilities/phone-check: libphonenumber-js/max offline, numverify's field names, valid:false for a number
// that parses but is not assigned, and a 400 for text that is no phone number at all.
import { upstreamSuite } from '../../helpers/upstream-suite.js';
import { expectAnswer, expectMatchesSchema } from '../../helpers/schema.js';

// Embedded: no upstream to fake, only the app.
const s = upstreamSuite({ endpoint: 'utilities/phone-check', upstreams: {} });
const check = (phone: string) => s.get({ phone });

test('a US number in numverify names, with formats', async () => {
  const res = await check('+1 (415) 858-6273');
  expectAnswer(res, 'embedded', 'utilities/phone-check');
  expect(res.body.data).toEqual({
    valid: true,
    possible: true,
    number: '14158586273',
    local_format: '4158586273',
    international_format: '+14158586273',
    country_prefix: '+1',
    country_code: 'US',
    country_name: 'United States',
    location: null,
    carrier: null,
    line_type: 'landline_or_mobile',
    formats: { e164: '+14158586273', international: '+1 415 858 6273', national: '(415) 858-6273', rfc3966: 'tel:+14158586273' },
  });
});

test.each([
  [
    '+44 20 7183 8750',
    { country_code: 'GB', country_name: 'United Kingdom', line_type: 'landline', country_prefix: '+44', local_format: '2071838750' },
  ],
  ['0049 1511 2345678', { country_code: 'DE', country_name: 'Germany', line_type: 'mobile', international_format: '+4915112345678' }],
  ['33.1.23.45.67.89', { country_code: 'FR', line_type: 'landline', number: '33123456789' }],
  ['+1-800-555-0199', { country_code: 'US', line_type: 'toll_free' }],
])('%s is valid and typed', async (phone, expected) => {
  const res = await check(phone);
  expect(res.status).toBe(200);
  expectMatchesSchema('utilities/phone-check', res.body.data);
  expect(res.body.data).toMatchObject({ valid: true, ...expected });
});

test('a parseable number outside any assigned range is valid:false, not an error', async () => {
  const res = await check('+1 000 000 0000');
  expect(res.status).toBe(200);
  expectMatchesSchema('utilities/phone-check', res.body.data);
  expect(res.body.data).toMatchObject({ valid: false, possible: true, country_prefix: '+1', country_code: null, line_type: null });
});

test('an unknown country calling code is valid:false with nulls', async () => {
  const res = await check('+999 123 456');
  expect(res.status).toBe(200);
  expectMatchesSchema('utilities/phone-check', res.body.data);
  expect(res.body.data).toMatchObject({ valid: false, possible: false, number: '999123456', country_code: null, formats: null });
});

test('too short for its country is valid:false and not possible', async () => {
  const res = await check('+44 20 71');
  expect(res.status).toBe(200);
  expect(res.body.data).toMatchObject({ valid: false, possible: false, country_prefix: '+44' });
});

test.each([
  ['letters', '+1 415 CALL NOW', /^Invalid value for phone: must be digits, \+, spaces and -\.\(\) only/],
  ['an extension marker', '+14158586273;ext=1', /^Invalid value for phone: must be digits/],
  ['a + inside', '1415+8586273', /^Invalid value for phone: must be a phone number/],
  ['no digits', '(-) .', /^Invalid value for phone: must be a phone number/],
  ['one digit', '+ 1', /^Invalid value for phone: must have between 2 and 17 digits/],
  ['too many digits', '+1234567890123456789', /^Invalid value for phone: must have between 2 and 17 digits/],
  ['too long', '+1 '.repeat(20), /^Invalid value for phone: must be digits/],
])('%s → 400', async (_name, phone, message) => {
  const res = await check(phone);
  expect(res.status).toBe(400);
  expect(res.body).toMatchObject({ success: false, code: 'bad_input' });
  expect(res.body.error).toMatch(message);
});

test('missing phone → 400 Missing required parameter: phone', async () => {
  const res = await s.get();
  expect(res.status).toBe(400);
  expect(res.body.error).toBe('Missing required parameter: phone');
});
