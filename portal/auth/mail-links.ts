// The links the portal mails (auth/link-tokens.ts makes them): the confirmation of a new account's
// address and the password reset, and the notice of a sign-up with a taken address. The page that asks for
// one never waits for it: its answer must not wait on (nor tell, by its time) the making and sending of a
// message, and a failure is logged, never shown. Each counts on the address's hourly allowance of link
// mails (auth/link-throttle.ts) unless the route counted the request already (`counted`), and is
// dropped past it.
import type { PortalContext } from '../context.js';
import type { Account } from '../accounts/accounts.js';
import { LINK_TTL_MS } from './link-tokens.js';

type Mailing = Pick<PortalContext, 'links' | 'linkThrottle' | 'mail' | 'deps'>;

/** Runs a mailing to `to` in the background, within the address's allowance, logging what failed. */
function later(ctx: Mailing, what: string, to: string, counted: boolean, run: () => Promise<unknown>): void {
  (async () => {
    if (!counted && (await ctx.linkThrottle.hit(undefined, to)))
      return ctx.deps.log.info(`mail: the ${what} was not sent (address throttled)`);
    await run();
  })().catch((err: Error) => ctx.deps.log.warn({ err: err.message }, `mail: cannot make the ${what}`));
}

/** A one-hour reset link for the account (ended by any password change before it is used). */
export async function resetLink(ctx: Mailing, account: Account, mailed: boolean): Promise<{ url: string; expiresAt: number }> {
  // A mailed link names the address it went to: once the account's address changes, it opens nothing.
  const { token, expiresAt } = await ctx.links.issue({
    purpose: 'reset',
    accountId: account.id,
    gen: account.sessionGen ?? 0,
    mailed,
    ...(mailed && { to: account.email }),
  });
  return { url: `${ctx.deps.config.publicUrl}/login/reset?token=${token}`, expiresAt };
}

/** Mails a new confirmation link to an account that has not confirmed its address. */
export function mailConfirmation(ctx: Mailing, account: Account, counted = false): void {
  const mail = ctx.mail;
  if (!mail) return;
  later(ctx, 'confirmation link', account.email, counted, async () => {
    const { token } = await ctx.links.issue({ purpose: 'verify', accountId: account.id });
    await mail.send('verify-email', account.email, {
      link: `${ctx.deps.config.publicUrl}/signup/confirm?token=${token}`,
      hours: LINK_TTL_MS.verify / 3600_000,
    });
  });
}

/** Mails a reset link to the account's address. */
export function mailReset(ctx: Mailing, account: Account, counted = false): void {
  const mail = ctx.mail;
  if (!mail) return;
  later(ctx, 'reset link', account.email, counted, async () => {
    const { url } = await resetLink(ctx, account, true);
    await mail.send('password-reset', account.email, { name: account.name, link: url, minutes: LINK_TTL_MS.reset / 60_000 });
  });
}

/** Tells an address's owner that someone tried to sign up with it. */
export function mailSignupExisting(ctx: Mailing, account: Account): void {
  const mail = ctx.mail;
  if (mail) later(ctx, 'sign-up notice', account.email, false, () => mail.send('signup-existing', account.email, {}));
}

/** Mails the confirmation of a new address to it, and a notice to the account's address now. */
export function mailEmailChange(ctx: Mailing, account: Account, to: string): void {
  const mail = ctx.mail;
  if (!mail) return;
  later(ctx, 'email change link', to, true, async () => {
    const { token } = await ctx.links.issue({ purpose: 'email-change', accountId: account.id, from: account.email, to });
    await Promise.all([
      mail.send('email-change-confirm', to, {
        name: account.name,
        link: `${ctx.deps.config.publicUrl}/account/email/confirm?token=${token}`,
        hours: LINK_TTL_MS['email-change'] / 3600_000,
      }),
      mail.send('email-change-notice', account.email, { name: account.name, to }),
    ]);
  });
}
