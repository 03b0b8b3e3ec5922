// Operator alerts: an upstream's circuit breaker opened or closed, an endpoint's probe failed N times in a
// row or recovered, a user asked for a higher plan (raised by the portal). Each goes to ALERT_WEBHOOK_URL as a plain JSON body that Slack's and Discord's incoming
// webhooks both take (`text` is Slack's field, `content` Discord's; each ignores the other's), and to the
// listeners (the portal mails it when SMTP is set). The POST goes through the SSRF-guarded client account
// webhooks use, with a few tries. An alert several instances raise (each has its own breakers) is sent
// once: the first to claim the episode (a row of the claims table, scope 'health-alert') sends the opening,
// the one that deletes the claim the closing.
import type { Logger } from 'pino';
import type { Db } from '../../engine/db/open.js';
import { postUrl, PostFailed } from '../../engine/upstream/guarded-post.js';

export type AlertKind = 'breaker.open' | 'breaker.closed' | 'probe.failing' | 'probe.recovered' | 'upgrade.requested';

export interface Alert {
  kind: AlertKind;
  /** The upstream or endpoint it is about. */
  subject: string;
  /** One line, for chat and a mail's subject. */
  title: string;
  /** A few more lines. */
  detail: string;
  at: string;
}

export interface AlertOptions {
  webhookUrl: string | undefined;
  db: Db;
  log: Logger;
  userAgent: string;
  allowPrivate: boolean;
  /** Waits between tries of the webhook. */
  retryDelaysMs?: number[];
  timeoutMs?: number;
}

const SCOPE = 'health-alert';
const KEEP_MS = 86_400_000;
/** Discord refuses content over 2000 characters. */
const MAX_TEXT = 1900;

/** The webhook's body: Slack reads `text`, Discord `content`. */
const webhookBody = (a: Alert) => {
  const text = `${a.title}\n${a.detail}`.slice(0, MAX_TEXT);
  return JSON.stringify({ text, content: text });
};

export class Alerts {
  private readonly listeners: ((a: Alert) => void)[] = [];
  private readonly inFlight = new Set<Promise<void>>();
  private pruned = 0;

  constructor(private readonly o: AlertOptions) {}

  onAlert(listener: (a: Alert) => void): void {
    this.listeners.push(listener);
  }

  /**
   * Raises the alert. `once.claim`: only if no instance holds this marker yet (it then holds it);
   * `once.release`: only if this instance is the one that drops the marker (an episode's end).
   */
  raise(a: Alert, once: { claim?: string; release?: string } = {}): void {
    const work = (once.release ? this.release(once.release) : this.claim(once.claim))
      .then(async (mine) => {
        if (!mine) return;
        this.o.log.warn({ alert: a.kind, subject: a.subject }, `alert: ${a.title}`);
        for (const l of this.listeners) l(a);
        if (this.o.webhookUrl) await this.post(this.o.webhookUrl, a);
      })
      .catch((err: Error) => this.o.log.warn({ err: err.message, alert: a.kind }, 'alert: cannot raise'));
    this.inFlight.add(work);
    void work.finally(() => this.inFlight.delete(work));
  }

  /** Waits for the alerts on their way (tests, shutdown). */
  async settled(): Promise<void> {
    while (this.inFlight.size) await Promise.all(this.inFlight);
  }

  private async claim(dedupe: string | undefined): Promise<boolean> {
    if (!dedupe) return true;
    const { db } = this.o;
    const now = Date.now();
    // An episode whose end no instance saw (it stopped first) is forgotten after a day.
    if (now - this.pruned > KEEP_MS / 24) {
      this.pruned = now;
      await db.deleteFrom('claims').where('scope', '=', SCOPE).where('expiresAt', '<', now).execute();
    }
    const inserted = await db
      .insertInto('claims')
      .values({ scope: SCOPE, id: dedupe, at: now, expiresAt: now + KEEP_MS, note: null })
      .onConflict((oc) => oc.columns(['scope', 'id']).doNothing())
      .executeTakeFirst();
    return Number(inserted.numInsertedOrUpdatedRows ?? 0) === 1;
  }

  /** True when this instance deleted the claim (another may have already). */
  private async release(dedupe: string): Promise<boolean> {
    const deleted = await this.o.db.deleteFrom('claims').where('scope', '=', SCOPE).where('id', '=', dedupe).executeTakeFirst();
    return Number(deleted.numDeletedRows) === 1;
  }

  private async post(url: string, a: Alert): Promise<void> {
    const delays = [0, ...(this.o.retryDelaysMs ?? [2000, 10_000])];
    let last = '';
    for (const delay of delays) {
      if (delay) await new Promise((ok) => setTimeout(ok, delay).unref());
      try {
        const answer = await postUrl(url, webhookBody(a), {
          headers: { 'content-type': 'application/json', 'user-agent': this.o.userAgent },
          timeoutMs: this.o.timeoutMs ?? 10_000,
          keepBytes: 512,
          allowPrivate: this.o.allowPrivate,
        });
        if (answer.status >= 200 && answer.status < 300) return;
        last = `HTTP ${answer.status}`;
        // A refusal of the body or the URL will not change on a retry; a 429 or 5xx may.
        if (answer.status < 500 && answer.status !== 429) break;
      } catch (err) {
        if (!(err instanceof PostFailed)) throw err;
        last = err.message;
      }
    }
    this.o.log.warn({ alert: a.kind, why: last }, 'alert: the webhook did not take it');
  }
}
