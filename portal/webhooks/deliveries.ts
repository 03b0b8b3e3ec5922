// Deliveries of account events to the account's webhook, as Standard Webhooks describes them: a POST of
// `{ type, timestamp, data }`, signed afresh at each attempt under one webhook-id, a success being a 2xx
// answer; anything else (another status, a redirect, no answer in time, no connection) is tried again
// after the next delay of the schedule, with a tenth of jitter, until the attempts run out. 410 Gone stops
// the webhook until its owner saves it again.
//
// The queue is in the store ('webhook-queue', one document per delivery), so pending retries survive a
// restart and every instance sees them. Each instance's worker sends what is due; an attempt is claimed
// first with an insert-only document (`<id>:<attempt>:<n>`), so one instance sends it. A claim whose
// holder died (older than the send's time limit and a minute) is taken over with the next `n`. Closing
// aborts the attempts in flight and lets go of their claims: the next start makes them again.
import type { Logger } from 'pino';
import type { Store } from '../../engine/store/index.js';
import type { WriteOp } from '../../engine/store/types.js';
import type { AccountEvent, AccountEvents } from '../../engine/access/account-events.js';
import { postUrl, PostFailed } from '../../engine/upstream/guarded-post.js';
import { messageId, signedHeaders } from './signing.js';
import { signingSecrets, type WebhookSettingsStore } from './settings.js';

/** The event "send a test event" sends, whatever events the webhook chose. */
export const TEST_EVENT = 'webhook.test';

interface Delivery {
  /** The webhook-id of every attempt (msg_…). */
  id: string;
  accountId: string;
  type: string;
  /** The payload as sent: the same bytes at every attempt. */
  body: string;
  /** The attempt to make next, from 1. */
  attempt: number;
  /** When it is due, in epoch ms. */
  dueAt: number;
}

/** One attempt, as the webhook page lists it. */
export interface AttemptRecord {
  id: string;
  type: string;
  attempt: number;
  /** How many attempts a delivery gets. */
  attempts: number;
  at: string;
  ms: number;
  status?: number;
  /** Why no answer came. */
  error?: string;
  /** The first bytes of the answer. */
  body?: string;
  outcome: 'delivered' | 'retrying' | 'failed' | 'stopped';
  nextAt?: string;
}

export interface DeliveryOptions {
  store: Store;
  settings: WebhookSettingsStore;
  log: Pick<Logger, 'warn' | 'info'>;
  /** Delays before the second, third… attempts (WEBHOOK_RETRY_DELAYS). */
  retryDelaysMs: number[];
  /** One attempt's time limit (WEBHOOK_TIMEOUT). */
  timeoutMs: number;
  /** ALLOW_PRIVATE_FETCH: only tests let deliveries reach loopback receivers. */
  allowPrivate: boolean;
  userAgent: string;
  serviceName: string;
}

const QUEUE = 'webhook-queue';
const CLAIMS = 'webhook-claims';
const logList = (accountId: string) => `webhook-log:${accountId}`;
const LOG_CAP = 20;
const LOG_TTL_MS = 30 * 86_400_000;
/** Bytes of an answer kept for the page. */
const KEEP_BYTES = 512;
const MAX_IN_FLIGHT = 8;
/** The longest sleep: retries another instance scheduled (and claims of instances that died) are seen this often. */
const POLL_MS = 5000;

const jittered = (ms: number) => ms + Math.floor(Math.random() * ms * 0.1);

export class Deliveries {
  private closed = false;
  private timer: NodeJS.Timeout | undefined;
  private timerAt = Infinity;
  private running: Promise<void> | undefined;
  private again = false;
  private readonly inFlight = new Map<string, { stop: AbortController; done: Promise<void> }>();

  constructor(private readonly o: DeliveryOptions) {}

  get attempts(): number {
    return this.o.retryDelaysMs.length + 1;
  }

  /** Hears the account events and sends what is due now (a previous run's pending retries too). */
  start(events: AccountEvents): void {
    events.on((e) => this.enqueue(e));
    this.wake(0);
  }

  /** Queues an event for the account's webhook, when it has one that wants it. */
  async enqueue(event: AccountEvent): Promise<void> {
    if (this.closed) return;
    const s = await this.o.settings.get(event.accountId);
    if (!s || s.stopped || !s.events.includes(event.type)) return;
    await this.add(event.accountId, event.type, event.at, event.data);
  }

  /** Queues a test event for the account's webhook. */
  sendTest(accountId: string): Promise<void> {
    const message = `A test event from ${this.o.serviceName}: your endpoint is set up.`;
    return this.add(accountId, TEST_EVENT, new Date().toISOString(), { message });
  }

  /** The account's last attempts, newest first. */
  async recent(accountId: string): Promise<AttemptRecord[]> {
    return (await this.o.store.recent(logList(accountId), LOG_CAP)).map((item) => JSON.parse(item) as AttemptRecord);
  }

  /** Stops the worker: attempts in flight are aborted and stay queued for the next start. */
  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.timer);
    for (const f of this.inFlight.values()) f.stop.abort(new Error('closing'));
    await this.running;
    await Promise.all([...this.inFlight.values()].map((f) => f.done));
  }

  private async add(accountId: string, type: string, at: string, data: unknown) {
    if (this.closed) return;
    const id = messageId();
    const delivery: Delivery = { id, accountId, type, body: JSON.stringify({ type, timestamp: at, data }), attempt: 1, dueAt: Date.now() };
    await this.o.store.put(QUEUE, id, delivery);
    this.wake(0);
  }

  /** Looks at the queue at `at` (epoch ms), unless a look is due sooner already. */
  private wake(at: number) {
    if (this.closed || (this.timer && this.timerAt <= at)) return;
    clearTimeout(this.timer);
    this.timerAt = at;
    this.timer = setTimeout(
      () => {
        this.timer = undefined;
        this.timerAt = Infinity;
        this.look();
      },
      Math.max(0, at - Date.now()),
    );
    this.timer.unref();
  }

  private look() {
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = this.sendDue()
      .catch((err: Error) => this.o.log.warn({ err: err.message }, 'webhooks: cannot read the queue'))
      .finally(() => {
        this.running = undefined;
        if (this.again) {
          this.again = false;
          this.wake(0);
        }
      });
  }

  /** Starts what is due (up to MAX_IN_FLIGHT) and sleeps until the next delivery is due. */
  private async sendDue() {
    const now = Date.now();
    let next = now + POLL_MS;
    for (const d of (await this.o.store.list<Delivery>(QUEUE)).sort((a, b) => a.dueAt - b.dueAt)) {
      if (this.closed) return;
      if (this.inFlight.has(d.id)) continue;
      if (d.dueAt > now) next = Math.min(next, d.dueAt);
      else if (this.inFlight.size < MAX_IN_FLIGHT) this.send(d);
    }
    this.wake(next);
  }

  private send(d: Delivery) {
    const stop = new AbortController();
    const done = this.attempt(d, stop.signal)
      .catch((err: Error) => this.o.log.warn({ err: err.message, deliveryId: d.id }, 'webhooks: an attempt failed to run'))
      .finally(() => {
        this.inFlight.delete(d.id);
        // A place is free: what waited for one is due.
        this.wake(Date.now());
      });
    this.inFlight.set(d.id, { stop, done });
  }

  /** The claims this instance now holds on the attempt, or undefined when another instance holds it. */
  private async claim(d: Delivery): Promise<string[] | undefined> {
    const { store } = this.o;
    const leaseMs = this.o.timeoutMs + 60_000;
    const ids: string[] = [];
    for (let n = 0; ; n++) {
      const id = `${d.id}:${d.attempt}:${n}`;
      ids.push(id);
      if (await store.insert(CLAIMS, id, { at: Date.now() })) return ids;
      const held = await store.get<{ at: number }>(CLAIMS, id);
      if (held && Date.now() - held.at < leaseMs) return undefined;
    }
  }

  private async attempt(d: Delivery, signal: AbortSignal) {
    const { store } = this.o;
    const claims = await this.claim(d);
    if (!claims) return;
    try {
      // Another instance may have made this attempt between our reading the queue and our claim.
      const current = await store.get<Delivery>(QUEUE, d.id);
      if (!current || current.attempt !== d.attempt || signal.aborted) return;
      const settings = await this.o.settings.get(d.accountId);
      if (!settings || settings.stopped) {
        // The webhook was removed or stopped since: what was queued for it is dropped.
        await store.del(QUEUE, d.id);
        return;
      }

      const started = Date.now();
      const headers = {
        'content-type': 'application/json',
        'user-agent': this.o.userAgent,
        ...signedHeaders(signingSecrets(settings, started), d.id, Math.floor(started / 1000), d.body),
      };
      let answer: { status: number; body: string } | undefined;
      let error: string | undefined;
      try {
        const a = await postUrl(settings.url, d.body, {
          headers,
          timeoutMs: this.o.timeoutMs,
          keepBytes: KEEP_BYTES,
          allowPrivate: this.o.allowPrivate,
          signal,
        });
        answer = { status: a.status, body: a.body.toString('utf8') };
      } catch (err) {
        if (signal.aborted) return; // closing: made again at the next start
        error = err instanceof PostFailed ? err.message : 'the request could not be sent';
      }
      await this.settle(d, started, answer, error);
    } finally {
      await Promise.all(claims.map((id) => store.del(CLAIMS, id)));
    }
  }

  /** Records the attempt and queues the next one, or ends the delivery. */
  private async settle(d: Delivery, started: number, answer: { status: number; body: string } | undefined, error: string | undefined) {
    const status = answer?.status;
    const ok = status !== undefined && status >= 200 && status < 300;
    const gone = status === 410;
    const retry = !ok && !gone && d.attempt < this.attempts;
    const nextAt = retry ? Date.now() + jittered(this.o.retryDelaysMs[d.attempt - 1]) : undefined;
    const record: AttemptRecord = {
      id: d.id,
      type: d.type,
      attempt: d.attempt,
      attempts: this.attempts,
      at: new Date(started).toISOString(),
      ms: Date.now() - started,
      status,
      error,
      body: answer?.body,
      outcome: ok ? 'delivered' : gone ? 'stopped' : retry ? 'retrying' : 'failed',
      nextAt: nextAt === undefined ? undefined : new Date(nextAt).toISOString(),
    };
    const ops: WriteOp[] = [{ kind: 'push', list: logList(d.accountId), items: [JSON.stringify(record)], cap: LOG_CAP, ttlMs: LOG_TTL_MS }];
    if (nextAt !== undefined) ops.push({ kind: 'put', coll: QUEUE, id: d.id, doc: { ...d, attempt: d.attempt + 1, dueAt: nextAt } });
    await this.o.store.write(ops);
    if (nextAt !== undefined) return this.wake(nextAt);
    await this.o.store.del(QUEUE, d.id);
    if (gone) await this.o.settings.stop(d.accountId, 'The endpoint answered 410 Gone: it asked for no more deliveries.');
    if (!ok)
      this.o.log.warn({ accountId: d.accountId, deliveryId: d.id, type: d.type, status, error }, `webhooks: delivery ${record.outcome}`);
  }
}
