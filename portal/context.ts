// What the portal's routes share, made once per portal: accounts, sessions, invites, the sign-in throttle
// and the page sender, over the dependencies the composition root handed in. Creating it also makes the
// first admin from ADMIN_EMAIL/ADMIN_PASSWORD (config.admin); `ready` settles once that is done.
import type { SignupMode } from '../engine/config.js';
import type { PortalDeps } from './types.js';
import { Accounts, ensureAdmin } from './accounts/accounts.js';
import { Sessions } from './accounts/sessions.js';
import { Invites } from './accounts/invites.js';
import { SignInThrottle } from './accounts/throttle.js';
import { createPages, type Pages } from './pages.js';

export interface PortalContext {
  deps: PortalDeps;
  accounts: Accounts;
  sessions: Sessions;
  invites: Invites;
  throttle: SignInThrottle;
  pages: Pages;
  signup: SignupMode;
  /** Settles when the first admin exists (or could not be made: that is logged) and the sign-in counts are read back. */
  ready: Promise<void>;
}

export function createContext(deps: PortalDeps): PortalContext {
  const { config, log } = deps;
  const accounts = new Accounts(deps.store, deps.keys);
  const signIns = SignInThrottle.create({ redis: deps.redis, store: deps.store, prefix: config.redisPrefix, log });
  const services = {
    deps,
    accounts,
    sessions: new Sessions(deps.store, accounts, config.publicUrl),
    invites: new Invites(deps.store),
    throttle: signIns.throttle,
    pages: createPages(config.serviceName, log),
    signup: config.signup,
  };

  // The first admin, never "the first user to sign up". Pages wait for it, so a test or a browser that
  // arrives at once finds it there.
  const admin = config.admin;
  const adminReady = admin
    ? ensureAdmin(accounts, admin)
        .then(({ outcome, account, note }) =>
          log.info({ accountId: account.id, outcome }, `portal: admin ${admin.email} ${outcome}${note ? `; ${note}` : ''}`),
        )
        .catch((err: Error) => log.error({ err: err.message }, `portal: cannot make ${admin.email} an admin`))
    : Promise.resolve();
  const ready = Promise.all([adminReady, signIns.ready]).then(() => undefined);

  return { ...services, ready };
}
