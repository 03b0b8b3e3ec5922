// The portal's settings read from the environment (server/config.ts): SIGNUP_LIMIT and FREE_PERSONAL_KEYS,
// their defaults, and the boot error that names a bad value.
import { loadConfig } from '../../server/config.js';

test('SIGNUP_LIMIT: 10 sign-ups per client IP per minute unless set; a whole number of at least 1', () => {
  expect(loadConfig({}).signupLimit).toBe(10);
  expect(loadConfig({ SIGNUP_LIMIT: '3' }).signupLimit).toBe(3);
  expect(() => loadConfig({ SIGNUP_LIMIT: '0' })).toThrow('SIGNUP_LIMIT must be at least 1, got "0"');
  expect(() => loadConfig({ SIGNUP_LIMIT: 'ten' })).toThrow('SIGNUP_LIMIT must be a whole number, got "ten"');
});

test('FREE_PERSONAL_KEYS: off unless true (or 1); anything else stops the boot', () => {
  expect(loadConfig({}).freePersonalKeys).toBe(false);
  expect(loadConfig({ FREE_PERSONAL_KEYS: 'true' }).freePersonalKeys).toBe(true);
  expect(loadConfig({ FREE_PERSONAL_KEYS: '1' }).freePersonalKeys).toBe(true);
  expect(loadConfig({ FREE_PERSONAL_KEYS: 'false' }).freePersonalKeys).toBe(false);
  expect(() => loadConfig({ FREE_PERSONAL_KEYS: 'yes' })).toThrow('FREE_PERSONAL_KEYS must be true or false, got "yes"');
});
