// One address, one mailbox: an address is taken only as a bare mailbox (local@domain), parsed by an RFC 5322
// parser (email-addresses). A list ("a@x.com,"), a display name ("x <a@x.com>"), a comment ("(c)a@x.com") or
// anything after the address would otherwise pass a pattern check, name a new account, and still be
// delivered by the mailer to the same mailbox: each variant a new sign-up mail to one victim.
import addresses from 'email-addresses';

const EMAIL_MAX = 254;

/** The mailbox as compared and stored for uniqueness (lower case), or undefined when `input` is not a bare address. */
export function bareMailbox(input: string): string | undefined {
  const trimmed = input.trim();
  if (!trimmed || trimmed.length > EMAIL_MAX) return undefined;
  const parsed = addresses.parseOneAddress({ input: trimmed, rfc6532: true });
  if (!parsed || parsed.type !== 'mailbox' || parsed.name || parsed.address !== trimmed) return undefined;
  // A domain of one label (localhost, an intranet name) is no address the service can mail.
  if (!parsed.domain.includes('.') || parsed.domain.startsWith('.') || parsed.domain.endsWith('.')) return undefined;
  return trimmed.toLowerCase();
}
