// An account's webhook: one endpoint URL, the event types it receives and its signing secret, one row of
// the `webhooks` table per account. The secret is kept as it is, not hashed: every delivery is signed with
// it (an API key is only ever compared, so only its hash is kept).
import net from 'node:net';
import type { Selectable } from 'kysely';
import type { Db } from '../../engine/db/open.js';
import type { WebhooksTable } from '../../engine/db/tables/webhooks.js';
import { ACCOUNT_EVENT_TYPES, type AccountEventType } from '../../engine/access/account-events.js';
import { isPublicAddress } from '../../engine/upstream/guarded-fetch.js';
import { newSecret } from './signing.js';

export interface WebhookSettings {
  url: string;
  events: AccountEventType[];
  /** The signing secret's bytes, base64 (shown as whsec_…). */
  secret: string;
  /** After a roll: the secret before, which still signs beside the new one until `until`. */
  previous?: { secret: string; until: string };
  createdAt: string;
  updatedAt: string;
  /** Deliveries stopped because the endpoint asked (410 Gone); saving the settings starts them again. */
  stopped?: { at: string; reason: string };
}

export const URL_MAX = 2048;
/** How long a rolled secret keeps signing beside the new one (Standard Webhooks' zero-downtime rotation). */
const ROLL_OVERLAP_MS = 24 * 3600_000;

/** The endpoint URL to keep, or why it is refused. Private hosts by name are refused at delivery (the guard resolves them). */
export function endpointUrl(text: string, allowPrivate: boolean): { url: string } | { problem: string } {
  const t = text.trim();
  if (!t) return { problem: 'Enter the URL of your endpoint.' };
  if (t.length > URL_MAX) return { problem: `Use a URL of at most ${URL_MAX.toLocaleString('en-US')} characters.` };
  let u: URL;
  try {
    u = new URL(t);
  } catch {
    return { problem: 'Enter a whole URL, such as https://example.com/webhooks.' };
  }
  if (u.protocol !== 'https:' && !(allowPrivate && u.protocol === 'http:'))
    return { problem: 'Use an https:// URL: the events travel encrypted only over https.' };
  if (u.username || u.password)
    return { problem: 'Leave the user name and password out of the URL: check the webhook-signature header instead.' };
  if (u.hash) return { problem: 'Leave out the #fragment: it is never sent.' };
  const host = u.hostname.replace(/^\[|\]$/g, '');
  const local = host === 'localhost' || host.endsWith('.localhost') || (net.isIP(host) !== 0 && !isPublicAddress(host));
  if (local && !allowPrivate) return { problem: 'That host is a private or loopback address: give a URL the internet can reach.' };
  return { url: u.toString() };
}

/** The event types a form chose (checkboxes named `events`), or why they are refused. */
export function chosenEvents(value: unknown): { events: AccountEventType[] } | { problem: string } {
  const list = (Array.isArray(value) ? value : value === undefined ? [] : [value]).map(String);
  const unknown = list.find((v) => !ACCOUNT_EVENT_TYPES.includes(v as AccountEventType));
  if (unknown !== undefined) return { problem: `There is no event type “${unknown.slice(0, 40)}”.` };
  if (!list.length) return { problem: 'Choose at least one event to receive (or remove the webhook).' };
  return { events: ACCOUNT_EVENT_TYPES.filter((t) => list.includes(t)) };
}

/** The secrets that sign a delivery now: the current one, and the one before it while it overlaps. */
export function signingSecrets(s: WebhookSettings, now = Date.now()): string[] {
  return s.previous && Date.parse(s.previous.until) > now ? [s.secret, s.previous.secret] : [s.secret];
}

function settingsOf(row: Selectable<WebhooksTable>): WebhookSettings {
  return {
    url: row.url,
    events: JSON.parse(row.events) as AccountEventType[],
    secret: row.secret,
    ...(row.previousSecret !== null &&
      row.previousUntil !== null && { previous: { secret: row.previousSecret, until: row.previousUntil } }),
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
    ...(row.stoppedAt !== null && { stopped: { at: row.stoppedAt, reason: row.stoppedReason ?? '' } }),
  };
}

export class WebhookSettingsStore {
  constructor(private readonly db: Db) {}

  async get(accountId: string): Promise<WebhookSettings | undefined> {
    const row = await this.db.selectFrom('webhooks').selectAll().where('accountId', '=', accountId).executeTakeFirst();
    return row && settingsOf(row);
  }

  /** Sets the URL and events (a first save makes the secret); a stopped webhook starts again. */
  async save(accountId: string, o: Pick<WebhookSettings, 'url' | 'events'>): Promise<WebhookSettings> {
    const now = new Date().toISOString();
    const events = JSON.stringify(o.events);
    // One upsert: two first saves at once keep one secret, and the one returned is the one kept.
    const row = await this.db
      .insertInto('webhooks')
      .values({ accountId, url: o.url, events, secret: newSecret(), createdAt: now, updatedAt: now })
      .onConflict((oc) => oc.column('accountId').doUpdateSet({ url: o.url, events, updatedAt: now, stoppedAt: null, stoppedReason: null }))
      .returningAll()
      .executeTakeFirstOrThrow();
    return settingsOf(row);
  }

  /** A new secret; the old one keeps signing beside it for a day, so receivers can switch without a gap. */
  async roll(accountId: string): Promise<WebhookSettings | undefined> {
    const now = Date.now();
    // The old secret is read by the same statement that replaces it: two rolls at once cannot lose one.
    const row = await this.db
      .updateTable('webhooks')
      .set((eb) => ({
        previousSecret: eb.ref('secret'),
        previousUntil: new Date(now + ROLL_OVERLAP_MS).toISOString(),
        secret: newSecret(),
        updatedAt: new Date(now).toISOString(),
      }))
      .where('accountId', '=', accountId)
      .returningAll()
      .executeTakeFirst();
    return row && settingsOf(row);
  }

  /** Stops deliveries (the endpoint answered 410 Gone) until the owner saves the settings again. */
  async stop(accountId: string, reason: string): Promise<void> {
    await this.db
      .updateTable('webhooks')
      .set({ stoppedAt: new Date().toISOString(), stoppedReason: reason })
      .where('accountId', '=', accountId)
      .execute();
  }

  async remove(accountId: string): Promise<boolean> {
    const r = await this.db.deleteFrom('webhooks').where('accountId', '=', accountId).executeTakeFirst();
    return r.numDeletedRows > 0n;
  }
}
