// The earlier layout's documents as rows of today's tables: one function per collection, each taking the
// documents as that layout wrote them (their shapes are written out here, as they no longer exist elsewhere).
import crypto from 'node:crypto';
import type { Insertable } from 'kysely';
import type { Database } from '../tables.js';
import type { LegacyDoc } from './source.js';

type Row<T extends keyof Database> = Insertable<Database[T]>;
const flag = (v: boolean | undefined) => (v ? 1 : 0);
const orNull = <T>(v: T | undefined): T | null => (v === undefined ? null : v);

interface OldKey {
  id: string;
  hash: string;
  plan: string;
  name: string;
  createdAt: string;
  hint?: string;
  accountId?: string;
  expiresAt?: string;
  cap?: number;
  disabled?: boolean;
  replacedBy?: string;
  revokedAt?: string;
}
export const apiKeys = (docs: LegacyDoc<OldKey>[]): Row<'apiKeys'>[] =>
  docs.map(({ doc: k }) => ({
    hash: k.hash,
    id: k.id,
    accountId: orNull(k.accountId),
    plan: k.plan,
    name: k.name,
    createdAt: k.createdAt,
    hint: orNull(k.hint),
    expiresAt: orNull(k.expiresAt),
    cap: orNull(k.cap),
    disabled: flag(k.disabled),
    replacedBy: orNull(k.replacedBy),
    revokedAt: orNull(k.revokedAt),
  }));

export const keyLastUsed = (docs: LegacyDoc<{ at: string; ip: string }>[]): Row<'keyLastUsed'>[] =>
  docs.map(({ id, doc }) => ({ keyId: id, at: doc.at, ip: doc.ip }));

interface OldAccount {
  id: string;
  email: string;
  name: string;
  passwordHash: string;
  role: string;
  plan: string;
  status: string;
  createdAt: string;
  lastSignInAt?: string;
  sessionGen?: number;
  unverified?: boolean;
  quotaAlerts?: boolean;
}
export const accounts = (docs: LegacyDoc<OldAccount>[]): Row<'accounts'>[] =>
  docs.map(({ doc: a }) => ({
    id: a.id,
    email: a.email,
    emailKey: a.email.trim().toLowerCase(),
    name: a.name,
    passwordHash: a.passwordHash,
    role: a.role,
    plan: a.plan,
    status: a.status,
    createdAt: a.createdAt,
    lastSignInAt: orNull(a.lastSignInAt),
    sessionGen: a.sessionGen ?? 0,
    unverified: flag(a.unverified),
    quotaAlerts: a.quotaAlerts === undefined ? null : flag(a.quotaAlerts),
  }));

interface OldSession {
  csrf: string;
  accountId?: string;
  gen?: number;
  createdAt: number;
  seenAt: number;
}
export const sessions = (docs: LegacyDoc<OldSession>[]): Row<'sessions'>[] =>
  docs.map(({ id, doc: s, expiresAt }) => ({
    hash: id,
    csrf: s.csrf,
    accountId: orNull(s.accountId),
    gen: orNull(s.gen),
    createdAt: s.createdAt,
    seenAt: s.seenAt,
    expiresAt: expiresAt ?? s.seenAt,
  }));

interface OldLink {
  purpose: string;
  accountId: string;
  gen?: number;
  mailed?: boolean;
  from?: string;
  to?: string;
  expiresAt: number;
}
export const linkTokens = (docs: LegacyDoc<OldLink>[]): Row<'linkTokens'>[] =>
  docs.map(({ id, doc: l }) => ({
    hash: id,
    purpose: l.purpose,
    accountId: l.accountId,
    gen: orNull(l.gen),
    mailed: l.mailed === undefined ? null : flag(l.mailed),
    fromEmail: orNull(l.from),
    toEmail: orNull(l.to),
    expiresAt: l.expiresAt,
  }));

interface OldInvite {
  id: string;
  hash: string;
  plan?: string;
  createdBy: string;
  createdAt: string;
  expiresAt: string;
}
export const invites = (docs: LegacyDoc<OldInvite>[]): Row<'invites'>[] =>
  docs.map(({ id, doc: i }) => ({
    hash: i.hash ?? id,
    id: i.id,
    plan: orNull(i.plan),
    createdBy: i.createdBy,
    createdAt: i.createdAt,
    expiresAt: i.expiresAt,
  }));

interface OldUpgrade {
  accountId: string;
  from: string;
  to: string;
  message?: string;
  status: string;
  requestedAt: string;
  decidedAt?: string;
  decidedBy?: string;
  reason?: string;
}
export const upgradeRequests = (docs: LegacyDoc<OldUpgrade>[]): Row<'upgradeRequests'>[] =>
  docs.map(({ id, doc: u }) => ({
    accountId: u.accountId ?? id,
    fromPlan: u.from,
    toPlan: u.to,
    message: orNull(u.message),
    status: u.status,
    requestedAt: u.requestedAt,
    decidedAt: orNull(u.decidedAt),
    decidedBy: orNull(u.decidedBy),
    reason: orNull(u.reason),
  }));

interface OldPlanChange {
  at: string;
  from: string;
  to: string;
  by: string;
  actor?: string;
  event?: { id: string; type: string };
}
/** One document per account held its list of changes; each becomes a row with an id made from its place. */
export const planChanges = (docs: LegacyDoc<OldPlanChange[]>[]): Row<'planChanges'>[] =>
  docs.flatMap(({ id: accountId, doc: list }) =>
    list.map((c, i) => ({
      id: `pc_${crypto.hash('sha256', `${accountId}:${i}:${c.at}`).slice(0, 20)}`,
      accountId,
      at: c.at,
      fromPlan: c.from,
      toPlan: c.to,
      by: c.by,
      actor: orNull(c.actor),
      eventId: c.event?.id ?? null,
      eventType: c.event?.type ?? null,
    })),
  );

export const erasedUsage = (docs: LegacyDoc<{ erasedAt: string; partitions: string[] }>[]): Row<'erasedUsage'>[] =>
  docs.map(({ id, doc }) => ({ id, erasedAt: doc.erasedAt, partitions: JSON.stringify(doc.partitions) }));

interface OldWebhook {
  url: string;
  events: string[];
  secret: string;
  previous?: { secret: string; until: string };
  createdAt: string;
  updatedAt: string;
  stopped?: { at: string; reason: string };
}
export const webhooks = (docs: LegacyDoc<OldWebhook>[]): Row<'webhooks'>[] =>
  docs.map(({ id, doc: w }) => ({
    accountId: id,
    url: w.url,
    events: JSON.stringify(w.events),
    secret: w.secret,
    previousSecret: w.previous?.secret ?? null,
    previousUntil: w.previous?.until ?? null,
    createdAt: w.createdAt,
    updatedAt: w.updatedAt,
    stoppedAt: w.stopped?.at ?? null,
    stoppedReason: w.stopped?.reason ?? null,
  }));

interface OldDelivery {
  id: string;
  accountId: string;
  type: string;
  body: string;
  attempt: number;
  dueAt: number;
}
export const webhookDeliveries = (docs: LegacyDoc<OldDelivery>[]): Row<'webhookDeliveries'>[] =>
  docs.map(({ doc: d }) => ({
    id: d.id,
    accountId: d.accountId,
    type: d.type,
    body: d.body,
    attempt: d.attempt,
    dueAt: d.dueAt,
    claimedBy: null,
    claimedUntil: null,
  }));

interface OldBilling {
  accountId: string;
  customerId: string;
  subscriptionId?: string;
  status?: string;
  priceId?: string;
  plan?: string;
  cancelAt?: string;
  periodStart?: string;
  periodEnd?: string;
  nextInvoiceAt?: string;
  paymentFailedAt?: string;
  nextRetryAt?: string;
  updatedAt: string;
  lastEvent?: { id: string; type: string };
}
export const billingSubscriptions = (docs: LegacyDoc<OldBilling>[]): Row<'billingSubscriptions'>[] =>
  docs.map(({ id, doc: b }) => ({
    accountId: b.accountId ?? id,
    customerId: b.customerId,
    subscriptionId: orNull(b.subscriptionId),
    status: orNull(b.status),
    priceId: orNull(b.priceId),
    plan: orNull(b.plan),
    cancelAt: orNull(b.cancelAt),
    periodStart: orNull(b.periodStart),
    periodEnd: orNull(b.periodEnd),
    nextInvoiceAt: orNull(b.nextInvoiceAt),
    paymentFailedAt: orNull(b.paymentFailedAt),
    nextRetryAt: orNull(b.nextRetryAt),
    updatedAt: b.updatedAt,
    lastEventId: b.lastEvent?.id ?? null,
    lastEventType: b.lastEvent?.type ?? null,
  }));

export const billingCustomers = (docs: LegacyDoc<{ accountId: string }>[]): Row<'billingCustomers'>[] =>
  docs.map(({ id, doc }) => ({ customerId: id, accountId: doc.accountId }));

export const billingEvents = (docs: LegacyDoc<{ type: string; at: string; done?: boolean }>[]): Row<'billingEvents'>[] =>
  docs.map(({ id, doc }) => ({ id, type: doc.type, at: doc.at, done: flag(doc.done) }));

interface OldProbe {
  at: string;
  status: number;
  code?: string;
  ms: number;
  source?: string;
  verdict: string;
  fails: number;
  oks: number;
}
export const probes = (docs: LegacyDoc<OldProbe>[]): Row<'probes'>[] =>
  docs.map(({ id, doc: p }) => ({
    endpoint: id,
    at: p.at,
    status: p.status,
    code: orNull(p.code),
    ms: p.ms,
    source: orNull(p.source),
    verdict: p.verdict,
    fails: p.fails,
    oks: p.oks,
  }));

interface OldIncident {
  id: string;
  endpoint: string;
  state: string;
  openedAt: string;
  closedAt?: string;
  updates: unknown[];
}
export const incidents = (docs: LegacyDoc<OldIncident>[]): Row<'incidents'>[] =>
  docs.map(({ doc: i }) => ({
    id: i.id,
    endpoint: i.endpoint,
    state: i.state,
    openedAt: i.openedAt,
    closedAt: orNull(i.closedAt),
    updates: JSON.stringify(i.updates),
  }));

/** The server's secrets, by the name each feature keeps its own under. */
export const secrets = (docs: LegacyDoc<{ secret: string }>[]): Row<'secrets'>[] =>
  docs.map(({ id, doc }) => ({ name: id, value: doc.secret }));
