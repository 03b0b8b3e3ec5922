// The mails of a factor added or removed (with SMTP_URL): sent without waiting, a failure logged by the
// mailer (portal/mail/mailer.ts), so a change is never held up by the mail server.
import type { PortalContext } from '../context.js';
import type { Account } from '../accounts/accounts.js';

export type FactorChange = { added: string } | { removed: string; byAdmin?: boolean };

export function mailFactorChange(ctx: Pick<PortalContext, 'mail'>, account: Account, change: FactorChange): void {
  const at = new Date().toISOString();
  if ('added' in change) void ctx.mail?.send('factor-added', account.email, { name: account.name, factor: change.added, at });
  else
    void ctx.mail?.send('factor-removed', account.email, {
      name: account.name,
      factor: change.removed,
      byAdmin: Boolean(change.byAdmin),
      at,
    });
}
