// What the portal's routes share, made once per portal: accounts, sessions, invites, the sign-in throttle,
// the page sender, and with SMTP_URL the mailer (and the notices it sends on account events), over the
// dependencies the composition root handed in. Creating it also makes the first admin from
// ADMIN_EMAIL/ADMIN_PASSWORD (config.admin); `ready` settles once that is done.
import type { SignupMode } from '../engine/config.js';
import type { PortalDeps } from './types.js';
import { Accounts, ensureAdmin } from './accounts/accounts.js';
import { Sessions } from './accounts/sessions.js';
import { Invites } from './accounts/invites.js';
import { SignInThrottle } from './accounts/throttle.js';
import { LinkTokens } from './accounts/link-tokens.js';
import { LinkThrottle } from './accounts/link-throttle.js';
import { createMailer, type Mailer } from './mail/mailer.js';
import { mailNotices } from './mail/notices.js';
import { createPages, type Pages } from './pages.js';

export interface PortalContext {
  deps: PortalDeps;
  accounts: Accounts;
  sessions: Sessions;
  invites: Invites;
  throttle: SignInThrottle;
  /** One-time links: address confirmation, password reset, email change. */
  links: LinkTokens;
  /** Requests for mailed links, per client IP and per address. */
  linkThrottle: LinkThrottle;
  /** Email, when SMTP_URL is set; its presence also turns on the confirmation of addresses at sign-up. */
  mail: Mailer | undefined;
  pages: Pages;
  signup: SignupMode;
  /** Settles when the first admin exists (or could not be made: that is logged). */
  ready: Promise<void>;
}

export function createContext(deps: PortalDeps): PortalContext {
  const { config, log } = deps;
  const accounts = new Accounts(deps.store, deps.keys);
  const mail = createMailer(config.mail, { serviceName: config.serviceName, publicUrl: config.publicUrl }, log);
  if (mail) mailNotices({ events: deps.keys.events, accounts, store: deps.store, mailer: mail });
  const services = {
    deps,
    accounts,
    sessions: new Sessions(deps.store, accounts, config.publicUrl),
    invites: new Invites(deps.store),
    throttle: SignInThrottle.create({ redis: deps.redis, prefix: config.redisPrefix, log }),
    links: new LinkTokens(deps.store),
    linkThrottle: LinkThrottle.create({ redis: deps.redis, prefix: config.redisPrefix, log }),
    mail,
    pages: createPages(config.serviceName, log),
    signup: config.signup,
  };

  // The first admin, never "the first user to sign up". Pages wait for it, so a test or a browser that
  // arrives at once finds it there.
  const admin = config.admin;
  const ready = admin
    ? ensureAdmin(accounts, admin)
        .then(({ outcome, account, note }) =>
          log.info({ accountId: account.id, outcome }, `portal: admin ${admin.email} ${outcome}${note ? `; ${note}` : ''}`),
        )
        .catch((err: Error) => log.error({ err: err.message }, `portal: cannot make ${admin.email} an admin`))
    : Promise.resolve();

  return { ...services, ready };
}
