// What the portal's routes share, made once per portal: accounts, sessions, invites, the sign-in, sign-up
// and link throttles, device cookies, upgrade requests, new keys waiting to be shown, one-time links, second
// factors of sign-in, the page sender, the webhooks, and with SMTP_URL the mailer (and the notices it sends
// on account events), over the dependencies the composition root handed in. Creating it also makes the first admin from
// ADMIN_EMAIL/ADMIN_PASSWORD (config.admin), carries FREE_PERSONAL_KEYS to free accounts' keys and reads
// back the throttles' counts (`ready` settles once all are done), and starts the webhook deliveries, which
// `close` stops.
import type { SignupMode } from '../engine/config.js';
import type { PortalDeps } from './shared/types.js';
import { Accounts, ensureAdmin } from './accounts/accounts.js';
import { Sessions } from './auth/sessions.js';
import { Invites } from './auth/invites.js';
import { SignInThrottle, SignUpThrottle } from './auth/throttle.js';
import { DeviceCookies } from './auth/device-cookies.js';
import { UpgradeRequests } from './accounts/upgrades.js';
import { planName } from './shared/format.js';
import { FreshKeys } from './keys/fresh-keys.js';
import { LinkTokens } from './auth/link-tokens.js';
import { LinkThrottle } from './auth/link-throttle.js';
import { createMailer, type Mailer } from './mail/mailer.js';
import { mailNotices } from './mail/notices.js';
import { createPages, type Pages } from './shared/pages.js';
import { WebhookSettingsStore } from './webhooks/settings.js';
import { Deliveries } from './webhooks/deliveries.js';
import { PlanChanges } from './accounts/plan-changes.js';
import { Billing } from './billing/billing.js';
import { BillingRecords } from './billing/records.js';
import { Factors } from './two-factor/factors.js';

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
  /** One-time links: address confirmation, password reset, email change. */
  links: LinkTokens;
  /** Requests for mailed links, per client IP and per address. */
  linkThrottle: LinkThrottle;
  /** Email, when SMTP_URL is set; its presence also turns on the confirmation of addresses at sign-up. */
  mail: Mailer | undefined;
  pages: Pages;
  signup: SignupMode;
  webhooks: { settings: WebhookSettingsStore; deliveries: Deliveries };
  /** Every plan change, with who or what made it (accounts/plan-changes.ts). */
  planChanges: PlanChanges;
  /** Plans sold through Stripe, when STRIPE_SECRET_KEY is set (portal/billing/). */
  billing: Billing | undefined;
  /** Second factors of sign-in: authenticator apps, passkeys, recovery codes (portal/two-factor/). */
  factors: Factors;
  /** Settles when the first admin exists (or could not be made: that is logged) and the throttles' counts are read back. */
  ready: Promise<void>;
  /** Stops what runs in the background (the webhook deliveries) and writes what the throttles hold. */
  close(): Promise<void>;
}

export function createContext(deps: PortalDeps): PortalContext {
  const { config, log } = deps;
  const accounts = new Accounts(deps.db, deps.keys, config.freePersonalKeys);
  const counters = { redis: deps.redis?.client, redisHealth: deps.redis, store: deps.store, prefix: config.redisPrefix, log };
  const webhookSettings = new WebhookSettingsStore(deps.db);
  const deliveries = new Deliveries({
    db: deps.db,
    settings: webhookSettings,
    log,
    ...config.webhooks,
    allowPrivate: config.allowPrivateFetch,
    userAgent: `${config.serviceName.replace(/[^A-Za-z0-9._-]+/g, '')}-Webhooks (+${config.publicUrl})`,
    serviceName: config.serviceName,
  });
  deliveries.start(deps.keys.events);
  const mail = createMailer(config.mail, { serviceName: config.serviceName, publicUrl: config.publicUrl }, log);
  const upgrades = new UpgradeRequests(deps.db, accounts, log);
  const planChanges = new PlanChanges(deps.db);
  const billing = config.billing
    ? new Billing(config.billing, {
        accounts,
        planChanges,
        records: new BillingRecords(deps.db),
        publicUrl: config.publicUrl,
        log,
        mail,
      })
    : undefined;
  const alertTo = deps.health.alertEmail;
  if (mail) mailNotices({ events: deps.keys.events, upgrades, accounts, db: deps.db, mailer: mail, operator: alertTo });
  // Operator alerts by mail too, when there is mail and someone to send them to (a request for a higher
  // plan is mailed on its own, to every admin: mailNotices).
  if (mail && alertTo)
    deps.health.alerts.onAlert((a) => {
      if (a.kind !== 'upgrade.requested')
        void mail.send('upstream-alert', alertTo, { name: config.admin?.name ?? 'operator', title: a.title, detail: a.detail });
    });
  // A request for a higher plan waits for an admin: the operator alert webhook says so too.
  upgrades.onRequested((request, account) =>
    deps.health.alerts.raise({
      kind: 'upgrade.requested',
      subject: account.email,
      title: `${account.email} asks for the ${planName(request.to)} plan`,
      detail: `From ${planName(request.from)}${request.message ? `: “${request.message}”` : ''}. Approve or decline it: ${config.publicUrl}/admin#queue-title`,
      at: request.requestedAt,
    }),
  );
  const services = {
    deps,
    accounts,
    sessions: new Sessions(deps.db, accounts, config.publicUrl),
    invites: new Invites(deps.db),
    throttle: SignInThrottle.create(counters),
    signups: SignUpThrottle.create({ ...counters, max: config.signupLimit }),
    devices: new DeviceCookies(deps.db, config.publicUrl),
    upgrades,
    freshKeys: new FreshKeys(deps.db),
    links: new LinkTokens(deps.db),
    linkThrottle: LinkThrottle.create(counters),
    mail,
    pages: createPages(config.serviceName, log),
    signup: config.signup,
    webhooks: { settings: webhookSettings, deliveries },
    planChanges,
    billing,
    factors: new Factors(deps.db, config),
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
      (n) => n && log.info({ keys: n, freePersonalKeys: config.freePersonalKeys }, "portal: free accounts' keys follow FREE_PERSONAL_KEYS"),
    )
    .catch((err: Error) => log.error({ err: err.message }, "portal: cannot carry FREE_PERSONAL_KEYS to free accounts' keys"));

  const throttles = [services.throttle, services.signups, services.linkThrottle];
  const ready = Promise.all([madeAdmin, freeKeys, ...throttles.map((t) => t.ready)]).then(() => undefined);
  const close = async () => {
    await deliveries.close();
    await Promise.all(throttles.map((t) => t.close()));
  };
  return { ...services, ready, close };
}
