// What the portal's routes share, made once per portal: accounts, sessions, invites, the sign-in and
// sign-up throttles, device cookies, upgrade requests, new keys waiting to be shown, and the page sender,
// over the dependencies the composition root handed in. Creating it also makes the first admin from
// ADMIN_EMAIL/ADMIN_PASSWORD (config.admin) and carries FREE_PERSONAL_KEYS to free accounts' keys; `ready`
// settles once both are done.
import type { SignupMode } from '../engine/config.js';
import type { PortalDeps } from './types.js';
import { Accounts, ensureAdmin } from './accounts/accounts.js';
import { Sessions } from './accounts/sessions.js';
import { Invites } from './accounts/invites.js';
import { SignInThrottle, SignUpThrottle } from './accounts/throttle.js';
import { DeviceCookies } from './accounts/device-cookies.js';
import { UpgradeRequests } from './accounts/upgrades.js';
import { FreshKeys } from './accounts/fresh-keys.js';
import { createPages, type Pages } from './pages.js';

export interface PortalContext {
  deps: PortalDeps;
  accounts: Accounts;
  sessions: Sessions;
  invites: Invites;
  throttle: SignInThrottle;
  signups: SignUpThrottle;
  devices: DeviceCookies;
  /** Plan upgrades asked for by users, decided by admins (listen with upgrades.onDecided). */
  upgrades: UpgradeRequests;
  freshKeys: FreshKeys;
  pages: Pages;
  signup: SignupMode;
  /** Settles when the first admin exists (or could not be made: that is logged). */
  ready: Promise<void>;
}

export function createContext(deps: PortalDeps): PortalContext {
  const { config, log } = deps;
  const accounts = new Accounts(deps.store, deps.keys, config.freePersonalKeys);
  const counters = { redis: deps.redis, prefix: config.redisPrefix, log };
  const services = {
    deps,
    accounts,
    sessions: new Sessions(deps.store, accounts, config.publicUrl),
    invites: new Invites(deps.store),
    throttle: SignInThrottle.create(counters),
    signups: SignUpThrottle.create({ ...counters, max: config.signupLimit }),
    devices: new DeviceCookies(deps.store, config.publicUrl),
    upgrades: new UpgradeRequests(deps.store, accounts, log),
    freshKeys: new FreshKeys(deps.store),
    pages: createPages(config.serviceName, log),
    signup: config.signup,
  };

  // The first admin, never "the first user to sign up". Pages wait for it, so a test or a browser that
  // arrives at once finds it there.
  const admin = config.admin;
  const madeAdmin = admin
    ? ensureAdmin(accounts, admin)
        .then(({ outcome, account, note }) =>
          log.info({ accountId: account.id, outcome }, `portal: admin ${admin.email} ${outcome}${note ? `; ${note}` : ''}`),
        )
        .catch((err: Error) => log.error({ err: err.message }, `portal: cannot make ${admin.email} an admin`))
    : Promise.resolve();
  const freeKeys = accounts
    .applyFreeKeyPolicy()
    .then(
      (n) =>
        n && log.info({ accounts: n, freePersonalKeys: config.freePersonalKeys }, "portal: free accounts' keys follow FREE_PERSONAL_KEYS"),
    )
    .catch((err: Error) => log.error({ err: err.message }, "portal: cannot carry FREE_PERSONAL_KEYS to free accounts' keys"));

  return { ...services, ready: Promise.all([madeAdmin, freeKeys]).then(() => undefined) };
}
