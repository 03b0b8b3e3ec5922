// Portal accounts: rows of `accounts`, whose unique `email_key` (the address lower-cased) makes two sign-ups
// (or a sign-up and an email change) of one address unable to both win. An account's plan and status decide
// its personal keys' plan and whether they work: they are disabled while it is not active, or on the free
// plan unless FREE_PERSONAL_KEYS gives free accounts personal keys (otherwise free users share the free key,
// spec §2.3), and every change reaches the keys at once (keys.updateAccount announces it, so each process
// forgets what it had cached within a second). The admin's list is read a page at a time.
import crypto from 'node:crypto';
import { type Expression, type ExpressionBuilder, type Selectable, type SqlBool, type Updateable } from 'kysely';
import type { KeyStore } from '../../engine/access/keystore.js';
import type { Db } from '../../engine/db/open.js';
import type { Database } from '../../engine/db/tables.js';
import type { AccountsTable } from '../../engine/db/tables/accounts.js';
import { hashPassword, passwordProblem } from './passwords.js';
import { bareMailbox } from './mailbox.js';

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

/** What the admin's list is filtered by: a status, or addresses not confirmed yet. */
export const STATES = [...STATUSES, 'unverified'] as const;
export type State = (typeof STATES)[number];

export const normalEmail = (email: string) => email.trim().toLowerCase();
export const isPlan = (v: unknown): v is Plan => PLANS.includes(v as Plan);
export const isState = (v: unknown): v is State => STATES.includes(v as State);
/**
 * The plan an account's personal keys carry: its own, but a free account's keys are on FREE_PERSONAL_PLAN
 * (FREE_PERSONAL_KEYS): the free allowance counted per key, where the shared free key counts per client IP.
 */
export const FREE_PERSONAL_PLAN = 'free-personal';
export const keyPlanOf = (plan: string, freePersonalKeys: boolean) => (plan === 'free' && freePersonalKeys ? FREE_PERSONAL_PLAN : plan);
/** Personal keys work only for active accounts on a paid plan, or on the free plan with FREE_PERSONAL_KEYS. */
const keysDisabled = (a: Pick<Account, 'plan' | 'status'>, freePersonalKeys: boolean) =>
  a.status !== 'active' || keyPlanOf(a.plan, freePersonalKeys) === 'free';

// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f]/;
export const NAME_MAX = 80;

/** Why an email (at sign-up; undefined when it is not being set) or a name is refused: none when fine. */
export function profileProblems(email: string | undefined, name: string): string[] {
  const out: string[] = [];
  if (email !== undefined && !bareMailbox(email)) out.push('Enter an email address like name@example.com.');
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

type AccountRow = Selectable<AccountsTable>;

function fromRow(r: AccountRow): Account {
  return {
    id: r.id,
    email: r.email,
    name: r.name,
    passwordHash: r.passwordHash,
    role: r.role as Account['role'],
    plan: r.plan as Plan,
    status: r.status as Status,
    createdAt: r.createdAt,
    ...(r.lastSignInAt !== null && { lastSignInAt: r.lastSignInAt }),
    sessionGen: r.sessionGen,
    ...(r.unverified ? { unverified: true } : {}),
    ...(r.quotaAlerts !== null && { quotaAlerts: Boolean(r.quotaAlerts) }),
  };
}

type Change = Partial<Omit<Account, 'id' | 'email' | 'createdAt'>>;

/** The columns a change writes (a field given as undefined is cleared). */
function columnsOf(change: Change): Updateable<AccountsTable> {
  const set: Updateable<AccountsTable> = {};
  const has = (k: keyof Change) => Object.hasOwn(change, k);
  if (has('name')) set.name = change.name!;
  if (has('passwordHash')) set.passwordHash = change.passwordHash!;
  if (has('role')) set.role = change.role!;
  if (has('plan')) set.plan = change.plan!;
  if (has('status')) set.status = change.status!;
  if (has('lastSignInAt')) set.lastSignInAt = change.lastSignInAt ?? null;
  if (has('sessionGen')) set.sessionGen = change.sessionGen ?? 0;
  if (has('unverified')) set.unverified = change.unverified ? 1 : 0;
  if (has('quotaAlerts')) set.quotaAlerts = change.quotaAlerts === undefined ? null : change.quotaAlerts ? 1 : 0;
  return set;
}

/** A write refused by a unique constraint (PostgreSQL's 23505, SQLite's "UNIQUE constraint failed"). */
function takenAlready(err: unknown): boolean {
  const e = err as { code?: unknown; message?: unknown };
  return e.code === '23505' || (typeof e.message === 'string' && e.message.includes('UNIQUE constraint failed'));
}

/** What the admin's list is narrowed to: an email prefix, a key's id or hint prefix, or an account id; a plan; a state. */
export interface AccountFilter {
  q?: string;
  plan?: Plan;
  state?: State;
}

/** One page of the admin's list, oldest first, with the cursors of the pages beside it (when there are any). */
export interface AccountPage {
  accounts: Account[];
  /** For `before`: the page before this one. */
  prev?: string;
  /** For `after`: the page after this one. */
  next?: string;
}

const PAGE_SIZE = 50;
/** A key is searched for from this many characters (fewer would match most keys' common prefix). */
const KEY_SEARCH_MIN = 4;

// A cursor is an account's place in the list, (created_at, id), as one URL-safe string.
const cursorOf = (a: Pick<Account, 'createdAt' | 'id'>) => `${a.createdAt}_${a.id}`;
function parseCursor(c: string | undefined): { createdAt: string; id: string } | undefined {
  const at = c?.indexOf('_') ?? -1;
  if (!c || at < 1) return undefined;
  return { createdAt: c.slice(0, at), id: c.slice(at + 1) };
}

/** Accounts placed before or after a cursor in the order (created_at, id). */
const placed = (cmp: '<' | '>', c: { createdAt: string; id: string }) => (eb: ExpressionBuilder<Database, 'accounts'>) =>
  eb(eb.refTuple('createdAt', 'id'), cmp, eb.tuple(c.createdAt, c.id));

export class Accounts {
  constructor(
    readonly db: Db,
    readonly keys: KeyStore,
    /** FREE_PERSONAL_KEYS: free accounts hold personal keys of their own. */
    readonly freePersonalKeys = false,
  ) {}

  async get(id: string): Promise<Account | undefined> {
    const row = await this.db.selectFrom('accounts').selectAll().where('id', '=', id).executeTakeFirst();
    return row && fromRow(row);
  }

  /** Several accounts by id (the holders of a page's requests or invites), in no set order. */
  async getMany(ids: string[]): Promise<Account[]> {
    const unique = [...new Set(ids)];
    if (!unique.length) return [];
    return (await this.db.selectFrom('accounts').selectAll().where('id', 'in', unique).execute()).map(fromRow);
  }

  async byEmail(email: string): Promise<Account | undefined> {
    const row = await this.db.selectFrom('accounts').selectAll().where('emailKey', '=', normalEmail(email)).executeTakeFirst();
    return row && fromRow(row);
  }

  /** Creates an account, or returns undefined when the email is taken (the insert conflicts on email_key). */
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
    const done = await this.db
      .insertInto('accounts')
      .values({
        id: account.id,
        email: account.email,
        emailKey: normalEmail(account.email),
        name: account.name,
        passwordHash: account.passwordHash,
        role: account.role,
        plan: account.plan,
        status: account.status,
        createdAt: account.createdAt,
        lastSignInAt: null,
        sessionGen: 0,
        unverified: account.unverified ? 1 : 0,
        quotaAlerts: null,
      })
      .onConflict((oc) => oc.column('emailKey').doNothing())
      .executeTakeFirst();
    return Number(done.numInsertedOrUpdatedRows) ? account : undefined;
  }

  /** The condition of a filter, on `accounts`. */
  private matching(f: AccountFilter) {
    return (eb: ExpressionBuilder<Database, 'accounts'>) => {
      const all: Expression<SqlBool>[] = [];
      if (f.plan) all.push(eb('plan', '=', f.plan));
      if (f.state === 'unverified') all.push(eb('unverified', '=', 1));
      else if (f.state) all.push(eb('status', '=', f.state));
      const q = f.q?.trim();
      if (q) {
        const email = normalEmail(q);
        const any: Expression<SqlBool>[] = [eb.and([eb('emailKey', '>=', email), eb('emailKey', '<', `${email}\uffff`)]), eb('id', '=', q)];
        // A key's id or the hint its holder sees: the accounts holding keys that start so.
        if (q.length >= KEY_SEARCH_MIN)
          any.push(
            eb(
              'id',
              'in',
              eb
                .selectFrom('apiKeys')
                .select('apiKeys.accountId')
                .where((k) =>
                  k.or([
                    k.and([k('apiKeys.id', '>=', q), k('apiKeys.id', '<', `${q}\uffff`)]),
                    k.and([k('apiKeys.hint', '>=', q), k('apiKeys.hint', '<', `${q}\uffff`)]),
                  ]),
                ),
            ),
          );
        all.push(eb.or(any));
      }
      return eb.and(all);
    };
  }

  /**
   * One page of the admin's list, ordered by (created_at, id): the first, or the one `after` (or `before`)
   * a cursor of an earlier answer.
   */
  async page(o: AccountFilter & { after?: string; before?: string; limit?: number } = {}): Promise<AccountPage> {
    const limit = o.limit ?? PAGE_SIZE;
    const before = parseCursor(o.before);
    const after = before ? undefined : parseCursor(o.after);
    let q = this.db.selectFrom('accounts').selectAll().where(this.matching(o));
    if (before) q = q.where(placed('<', before)).orderBy('createdAt', 'desc').orderBy('id', 'desc');
    else {
      if (after) q = q.where(placed('>', after));
      q = q.orderBy('createdAt').orderBy('id');
    }
    const rows = await q.limit(limit).execute();
    if (before) rows.reverse();
    const accounts = rows.map(fromRow);
    // Whether a matching account comes before (or after) this one: at most one row read.
    const beyond = async (cmp: '<' | '>', a: Account | undefined) => {
      if (!a) return undefined;
      const row = await this.db
        .selectFrom('accounts')
        .select('id')
        .where(this.matching(o))
        .where(placed(cmp, a))
        // Ordered as the index (created_at, id) is read towards it: without the order PostgreSQL may scan the table.
        .orderBy('createdAt', cmp === '<' ? 'desc' : 'asc')
        .orderBy('id', cmp === '<' ? 'desc' : 'asc')
        .limit(1)
        .executeTakeFirst();
      return row && cursorOf(a);
    };
    const [prev, next] = await Promise.all([beyond('<', accounts[0]), beyond('>', accounts.at(-1))]);
    return { accounts, ...(prev && { prev }), ...(next && { next }) };
  }

  /**
   * How many accounts match. By plan and state: the sum of a few rows of the totals the triggers keep
   * (account_counts), whatever the number of accounts; a search: COUNT(*) over what the search's indexes find.
   */
  async count(f: AccountFilter = {}): Promise<number> {
    if (f.q?.trim()) {
      const { n } = await this.db
        .selectFrom('accounts')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where(this.matching(f))
        .executeTakeFirstOrThrow();
      return Number(n);
    }
    let q = this.db.selectFrom('accountCounts').select((eb) => eb.fn.sum<number | null>('n').as('n'));
    if (f.plan) q = q.where('plan', '=', f.plan);
    if (f.state === 'unverified') q = q.where('unverified', '=', 1);
    else if (f.state) q = q.where('status', '=', f.state);
    const { n } = await q.executeTakeFirstOrThrow();
    return Number(n ?? 0);
  }

  /** The active admins' addresses and names (at most 50, by the role index): whom a request for a decision is mailed to. */
  async activeAdmins(): Promise<{ email: string; name: string }[]> {
    return this.db
      .selectFrom('accounts')
      .select(['email', 'name'])
      .where('role', '=', 'admin')
      .where('status', '=', 'active')
      .orderBy('createdAt')
      .limit(50)
      .execute();
  }

  /** Whether another active admin than `id` exists (at most one row read, by the role index). */
  async otherActiveAdmin(id: string): Promise<boolean> {
    const row = await this.db
      .selectFrom('accounts')
      .select('id')
      .where('role', '=', 'admin')
      .where('status', '=', 'active')
      .where('id', '<>', id)
      .limit(1)
      .executeTakeFirst();
    return row !== undefined;
  }

  /** Writes changed fields; a change of plan or status is carried to the account's keys. */
  async update(id: string, change: Change): Promise<Account | undefined> {
    const before = await this.get(id);
    if (!before) return undefined;
    const set = columnsOf(change);
    if (Object.keys(set).length) await this.db.updateTable('accounts').set(set).where('id', '=', id).execute();
    const after = fromRow({ ...(await this.db.selectFrom('accounts').selectAll().where('id', '=', id).executeTakeFirstOrThrow()) });
    if (after.plan !== before.plan || after.status !== before.status) await this.applyKeyPolicy(after);
    if (after.plan !== before.plan) this.keys.events.emit('plan.changed', id, { from: before.plan, to: after.plan });
    return after;
  }

  /**
   * Carries the account's plan and status to its keys (their plan, whether they work); returns how many
   * keys it wrote. Within a transaction (`trx`) nothing is announced: the caller does once it has committed.
   */
  async applyKeyPolicy(a: Account, trx?: Db): Promise<number> {
    return this.keys.updateAccount(
      a.id,
      { plan: keyPlanOf(a.plan, this.freePersonalKeys), disabled: keysDisabled(a, this.freePersonalKeys) },
      trx,
    );
  }

  /**
   * The account, read within a transaction and held to its end: PostgreSQL locks the row (FOR UPDATE);
   * SQLite's transaction holds the file's write lock from its first statement already.
   */
  async lock(id: string, trx: Db): Promise<Account | undefined> {
    const row = await trx.selectFrom('accounts').selectAll().where('id', '=', id).forUpdate().executeTakeFirst();
    return row && fromRow(row);
  }

  /**
   * Within the transaction `trx` that holds the account (lock): moves it to `plan`, and its keys as update
   * would. Nothing is announced before the commit: the caller then calls planMoved.
   */
  async setPlan(held: Account, plan: Plan, trx: Db): Promise<{ account: Account; keysMoved: number }> {
    await trx.updateTable('accounts').set({ plan }).where('id', '=', held.id).execute();
    const account = { ...held, plan };
    return { account, keysMoved: await this.applyKeyPolicy(account, trx) };
  }

  /** After the commit of setPlan: every instance forgets the keys it had cached, and 'plan.changed' is heard. */
  async planMoved(id: string, from: Plan, to: Plan, keysMoved: number): Promise<void> {
    try {
      if (keysMoved) await this.keys.announce();
    } finally {
      this.keys.events.emit('plan.changed', id, { from, to });
    }
  }

  /**
   * At boot: FREE_PERSONAL_KEYS may have been switched since the last start (the value last applied is kept
   * in `settings`), so free accounts' keys are moved to the plan and state it now gives them: two UPDATEs
   * (active free accounts, the others) that write only the keys that differ. Returns how many keys were moved.
   */
  async applyFreeKeyPolicy(): Promise<number> {
    // Only when the setting differs from the one last applied: the UPDATEs join every free account's keys.
    const setting = { name: 'free-personal-keys', value: String(this.freePersonalKeys) };
    const applied = await this.db.selectFrom('settings').select('value').where('name', '=', setting.name).executeTakeFirst();
    if (applied?.value === setting.value) return 0;
    const plan = keyPlanOf('free', this.freePersonalKeys);
    let moved = 0;
    for (const active of [true, false]) {
      const disabled = keysDisabled({ plan: 'free', status: active ? 'active' : 'suspended' }, this.freePersonalKeys) ? 1 : 0;
      const done = await this.db
        .updateTable('apiKeys')
        .set({ plan, disabled })
        .where('accountId', 'in', (eb) =>
          eb
            .selectFrom('accounts')
            .select('accounts.id')
            .where('accounts.plan', '=', 'free')
            .where('accounts.status', active ? '=' : '<>', 'active'),
        )
        .where((eb) => eb.or([eb('plan', '<>', plan), eb('disabled', '<>', disabled)]))
        .executeTakeFirst();
      moved += Number(done.numUpdatedRows);
    }
    await this.db
      .insertInto('settings')
      .values(setting)
      .onConflict((oc) => oc.column('name').doUpdateSet({ value: setting.value }))
      .execute();
    if (moved) await this.keys.store.announce('keys');
    return moved;
  }

  /** Erases the account's row (its keys are the caller's to revoke first); its address is free again. */
  async erase(a: Account): Promise<void> {
    await this.db.deleteFrom('accounts').where('id', '=', a.id).execute();
  }

  /** Moves the account to another address: false when the address belongs to another account (the unique email_key). */
  async changeEmail(id: string, email: string): Promise<boolean> {
    try {
      const done = await this.db
        .updateTable('accounts')
        .set({ email: email.trim(), emailKey: normalEmail(email) })
        .where('id', '=', id)
        .executeTakeFirst();
      return Number(done.numUpdatedRows) > 0;
    } catch (err) {
      if (takenAlready(err)) return false;
      throw err;
    }
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
