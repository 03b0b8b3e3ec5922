// Portal accounts in the store: 'accounts' (id → Account) and 'account-emails' (lower-cased email → { id }),
// the latter written with insert so two sign-ups (or a sign-up and an email change) of one email cannot
// both win. An account's plan and status decide its personal keys' plan and whether they work: they are
// disabled while it is not active, or on the free plan unless FREE_PERSONAL_KEYS gives free accounts
// personal keys (otherwise free users share the free key, spec §2.3), and every change reaches the keys at
// once (keys.updateAccount announces it, so each process forgets what it had cached within a second).
import crypto from 'node:crypto';
import type { Store } from '../../engine/store/index.js';
import type { KeyStore } from '../../engine/access/keystore.js';
import { hashPassword, passwordProblem } from './passwords.js';

export const PLANS = ['free', 'premium', 'enterprise'] as const;
export const STATUSES = ['active', 'pending', 'suspended'] as const;
export type Plan = (typeof PLANS)[number];
export type Status = (typeof STATUSES)[number];

export interface Account {
  id: string;
  email: string;
  name: string;
  passwordHash: string;
  role: 'user' | 'admin';
  plan: Plan;
  status: Status;
  createdAt: string;
  lastSignInAt?: string;
  /** Bumped when the password changes: sessions made under an older generation are refused. */
  sessionGen?: number;
  /** True from a sign-up under email verification until the link is used; absent means verified. */
  unverified?: boolean;
  /** Quota alerts by email (80% and 100% of the allowance); absent means on. */
  quotaAlerts?: boolean;
}

const ACCOUNTS = 'accounts';
const EMAILS = 'account-emails';

export const normalEmail = (email: string) => email.trim().toLowerCase();
export const isPlan = (v: unknown): v is Plan => PLANS.includes(v as Plan);
export const isStatus = (v: unknown): v is Status => STATUSES.includes(v as Status);
/**
 * The plan an account's personal keys carry: its own, but a free account's keys are on FREE_PERSONAL_PLAN
 * (FREE_PERSONAL_KEYS): the free allowance counted per key, where the shared free key counts per client IP.
 */
export const FREE_PERSONAL_PLAN = 'free-personal';
export const keyPlanOf = (plan: string, freePersonalKeys: boolean) => (plan === 'free' && freePersonalKeys ? FREE_PERSONAL_PLAN : plan);
/** Personal keys work only for active accounts on a paid plan, or on the free plan with FREE_PERSONAL_KEYS. */
const keysDisabled = (a: Pick<Account, 'plan' | 'status'>, freePersonalKeys: boolean) =>
  a.status !== 'active' || keyPlanOf(a.plan, freePersonalKeys) === 'free';

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f]/;
export const NAME_MAX = 80;

/** Why an email (at sign-up; undefined when it is not being set) or a name is refused: none when fine. */
export function profileProblems(email: string | undefined, name: string): string[] {
  const out: string[] = [];
  if (email !== undefined && (!EMAIL.test(email) || email.length > 254)) out.push('Enter an email address like name@example.com.');
  if (!name.trim()) out.push('Enter your name.');
  else if (name.trim().length > NAME_MAX || CONTROL.test(name))
    out.push(`Use at most ${NAME_MAX} characters for your name, without line breaks.`);
  return out;
}

export interface NewAccount {
  email: string;
  name: string;
  password: string;
  role?: Account['role'];
  plan?: Plan;
  status?: Status;
  unverified?: boolean;
}

export class Accounts {
  constructor(
    readonly store: Store,
    readonly keys: KeyStore,
    /** FREE_PERSONAL_KEYS: free accounts hold personal keys of their own. */
    readonly freePersonalKeys = false,
  ) {}

  get(id: string): Promise<Account | undefined> {
    return this.store.get<Account>(ACCOUNTS, id);
  }

  async byEmail(email: string): Promise<Account | undefined> {
    const ref = await this.store.get<{ id: string }>(EMAILS, normalEmail(email));
    const account = ref && (await this.get(ref.id));
    return account && normalEmail(account.email) === normalEmail(email) ? account : undefined;
  }

  /** Creates an account, or returns undefined when the email is taken. */
  async create(n: NewAccount): Promise<Account | undefined> {
    const account: Account = {
      id: `acc_${crypto.randomBytes(9).toString('base64url')}`,
      email: n.email.trim(),
      name: n.name.trim(),
      passwordHash: await hashPassword(n.password),
      role: n.role ?? 'user',
      plan: n.plan ?? 'free',
      status: n.status ?? 'active',
      createdAt: new Date().toISOString(),
      sessionGen: 0,
      ...(n.unverified ? { unverified: true } : {}),
    };
    if (!(await this.claim(account.email, account.id))) return undefined;
    await this.store.put(ACCOUNTS, account.id, account);
    return account;
  }

  /**
   * Takes an address in the index for `id`: false when it belongs to another account. An entry whose
   * account was never written, or has moved to another address since (a crash in between), is claimed
   * again once it is a minute old, so a sign-up or a change still under way is never taken over.
   */
  private async claim(address: string, id: string): Promise<boolean> {
    const email = normalEmail(address);
    const entry = { id, at: Date.now() };
    if (await this.store.insert(EMAILS, email, entry)) return true;
    const ref = await this.store.get<{ id: string; at?: number }>(EMAILS, email);
    if (ref?.id === id) return true;
    const holder = ref && (await this.get(ref.id));
    if (ref && (Date.now() - (ref.at ?? 0) < 60_000 || (holder && normalEmail(holder.email) === email))) return false;
    if (ref) await this.store.del(EMAILS, email);
    return this.store.insert(EMAILS, email, entry);
  }

  async list(): Promise<Account[]> {
    return (await this.store.list<Account>(ACCOUNTS)).sort((a, b) => a.createdAt.localeCompare(b.createdAt));
  }

  count(): Promise<number> {
    return this.store.count(ACCOUNTS);
  }

  /** Writes changed fields; a change of plan or status is carried to the account's keys. */
  async update(id: string, change: Partial<Omit<Account, 'id' | 'email' | 'createdAt'>>): Promise<Account | undefined> {
    const before = await this.get(id);
    if (!before) return undefined;
    const after: Account = { ...before, ...change };
    await this.store.put(ACCOUNTS, id, after);
    if (after.plan !== before.plan || after.status !== before.status) await this.applyKeyPolicy(after);
    if (after.plan !== before.plan) this.keys.events.emit('plan.changed', id, { from: before.plan, to: after.plan });
    return after;
  }

  /** Carries the account's plan and status to its keys (their plan, whether they work). */
  async applyKeyPolicy(a: Account): Promise<void> {
    await this.keys.updateAccount(a.id, {
      plan: keyPlanOf(a.plan, this.freePersonalKeys),
      disabled: keysDisabled(a, this.freePersonalKeys),
    });
  }

  /**
   * At boot: FREE_PERSONAL_KEYS may have been switched since the last start, so free accounts' keys are
   * moved to the plan and state it now gives them (only those that differ are written).
   */
  async applyFreeKeyPolicy(): Promise<number> {
    const plan = keyPlanOf('free', this.freePersonalKeys);
    const byAccount = new Map<string, { plan: string; disabled?: boolean }[]>();
    for (const k of await this.keys.list()) if (k.accountId) byAccount.set(k.accountId, [...(byAccount.get(k.accountId) ?? []), k]);
    let moved = 0;
    for (const a of await this.list()) {
      if (a.plan !== 'free' || !byAccount.has(a.id)) continue;
      const disabled = keysDisabled(a, this.freePersonalKeys);
      if (byAccount.get(a.id)!.some((k) => k.plan !== plan || Boolean(k.disabled) !== disabled)) {
        await this.applyKeyPolicy(a);
        moved++;
      }
    }
    return moved;
  }

  /** Erases the account's document and its email's index entry (its keys are the caller's to revoke first). */
  async erase(a: Account): Promise<void> {
    await this.store.del(ACCOUNTS, a.id);
    const ref = await this.store.get<{ id: string }>(EMAILS, normalEmail(a.email));
    if (ref?.id === a.id) await this.store.del(EMAILS, normalEmail(a.email));
  }

  /**
   * Moves the account to another address: false when the address belongs to another account. The new
   * index entry is inserted first, so two accounts can never both win an address; the old one is freed last.
   */
  async changeEmail(id: string, email: string): Promise<boolean> {
    const account = await this.get(id);
    const to = normalEmail(email);
    if (!account) return false;
    const from = normalEmail(account.email);
    if (to !== from && !(await this.claim(email, id))) return false;
    await this.store.put(ACCOUNTS, id, { ...account, email: email.trim() });
    if (to !== from) await this.store.del(EMAILS, from);
    return true;
  }

  /** New password; every session of the account ends (the caller signs the current one in again). */
  async setPassword(id: string, password: string): Promise<Account | undefined> {
    const account = await this.get(id);
    if (!account) return undefined;
    return this.update(id, { passwordHash: await hashPassword(password), sessionGen: (account.sessionGen ?? 0) + 1 });
  }
}

export type AdminOutcome = 'created' | 'promoted' | 'unchanged';

/**
 * The first admin (from ADMIN_EMAIL/ADMIN_PASSWORD at boot, or the CLI): creates the account, or promotes
 * an existing one. An existing account's password is never replaced: `note` says when one was ignored.
 */
export async function ensureAdmin(
  accounts: Accounts,
  o: { email: string; name?: string; password?: string },
): Promise<{ outcome: AdminOutcome; account: Account; note?: string }> {
  const existing = await accounts.byEmail(o.email);
  const note = existing && o.password ? 'the account exists: its password was left as it is (change it on /account)' : undefined;
  if (existing) {
    if (existing.role === 'admin') return { outcome: 'unchanged', account: existing, note };
    const account = await accounts.update(existing.id, {
      role: 'admin',
      ...(existing.status === 'pending' ? { status: 'active' as const } : {}),
    });
    return { outcome: 'promoted', account: account!, note };
  }
  if (!o.password) throw new Error(`no account ${o.email} yet: a password is needed to create it`);
  const problem = passwordProblem(o.password, o.email);
  if (problem) throw new Error(`the admin password is refused: ${problem}`);
  const account = await accounts.create({ email: o.email, name: o.name || o.email.split('@')[0], password: o.password, role: 'admin' });
  if (!account) throw new Error(`${o.email} was taken meanwhile`);
  return { outcome: 'created', account };
}
