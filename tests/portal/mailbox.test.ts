// An address is taken only as a bare mailbox: every form a mailer would still deliver to the same mailbox
// (a list, a display name, a comment, a trailing character) is refused; a bare one is compared in lower case.
import { bareMailbox } from '../../portal/accounts/mailbox.js';

test.each([
  'victim@example.com,',
  'victim@example.com;',
  'victim@example.com>',
  'x<victim@example.com>',
  '"Visit evil" <victim@example.com>',
  '(vv)victim@example.com',
  'victim@example.com (comment)',
  '"a b"@example.com',
  'a@@example.com',
  'victim@localhost',
  'victim@example.com.',
  `${'a'.repeat(250)}@example.com`,
  '',
])('%j is no bare mailbox', (input) => {
  expect(bareMailbox(input)).toBeUndefined();
});

test.each([
  ['victim@example.com', 'victim@example.com'],
  [' Victim@Example.COM ', 'victim@example.com'],
  ['user+tag@sub.example.org', 'user+tag@sub.example.org'],
  ['ünïcode@exämple.de', 'ünïcode@exämple.de'],
])('%j is the mailbox %j', (input, mailbox) => {
  expect(bareMailbox(input)).toBe(mailbox);
});
