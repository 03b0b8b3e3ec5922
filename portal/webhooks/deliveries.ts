// Deliveries of account events to the account's webhook, as Standard Webhooks describes them: a POST of
// `{ type, timestamp, data }`, signed afresh at each attempt under one webhook-id, a success being a 2xx
// answer; anything else (another status, a redirect, no answer in time, no connection) is tried again
// after the next delay of the schedule, with a tenth of jitter, until the attempts run out. 410 Gone stops
// the webhook until its owner saves it again.
//
// The queue is a table (queue.ts), so pending retries survive a restart and every instance sees them. Each
// instance's worker reads only what is due and claims each attempt for a lease before making it, so one
// instance sends it; a claim whose holder died is taken over once its lease (the send's time limit and a
// minute) has run out. Closing aborts the attempts in flight and lets go of their claims: the next start
// makes them again.
//
// Fair to every account: a worker has at most PER_ACCOUNT attempts of one account in flight and takes due
// deliveries in turns across accounts, so an endpoint that never answers holds its own account's places
// only; an account's queue holds at most QUEUE_CAP deliveries (past it new events are dropped, and its page
// says so), and one test event at a time.
import crypto from 'node:crypto';
import type { Logger } from 'pino';
import type { Db } from '../../engine/db/open.js';
import type { AccountEvent, AccountEvents } from '../../engine/access/account-events.js';
import { postUrl, PostFailed } from '../../engine/upstream/guarded-post.js';
import { messageId, signedHeaders } from './signing.js';
import { signingSecrets, type WebhookSettingsStore } from './settings.js';
import { DeliveryQueue, type Delivery } from './queue.js';
import { AttemptLog, type AttemptRecord } from './attempt-log.js';

/** What became of an event handed to the queue. */
export type Queued = 'queued' | 'test-waiting' | 'full';

/** The event "send a test event" sends, whatever events the webhook chose. */
export const TEST_EVENT = 'webhook.test';

export interface DeliveryOptions {
  db: Db;
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

/** Bytes of an answer kept for the page. */
const KEEP_BYTES = 512;
const MAX_IN_FLIGHT = 8;
/** Attempts of one account in flight on one worker. */
const PER_ACCOUNT = 2;
/** Deliveries one account may have waiting. */
export const QUEUE_CAP = 100;
/** The longest sleep: retries another instance scheduled (and claims of instances that died) are seen this often. */
const POLL_MS = 5000;

const jittered = (ms: number) => ms + Math.floor(Math.random() * ms * 0.1);

export class Deliveries {
  private closed = false;
  private timer: NodeJS.Timeout | undefined;
  private timerAt = Infinity;
  private running: Promise<void> | undefined;
  private again = false;
  private readonly inFlight = new Map<string, { accountId: string; stop: AbortController; done: Promise<void> }>();
  private readonly queue: DeliveryQueue;
  private readonly attemptLog: AttemptLog;
  /** This worker, as its claims name it. */
  private readonly holder = crypto.randomUUID();

  constructor(private readonly o: DeliveryOptions) {
    this.queue = new DeliveryQueue(o.db);
    this.attemptLog = new AttemptLog(o.db);
  }

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

  /** Queues a test event for the account's webhook, unless one waits already (or the queue is full). */
  sendTest(accountId: string): Promise<Queued> {
    const message = `A test event from ${this.o.serviceName}: your endpoint is set up.`;
    return this.add(accountId, TEST_EVENT, new Date().toISOString(), { message });
  }

  /** The account's last attempts, newest first. */
  recent(accountId: string): Promise<AttemptRecord[]> {
    return this.attemptLog.recent(accountId);
  }

  /** Stops the worker: attempts in flight are aborted and stay queued for the next start. */
  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.timer);
    for (const f of this.inFlight.values()) f.stop.abort(new Error('closing'));
    await this.running;
    await Promise.all([...this.inFlight.values()].map((f) => f.done));
  }

  private async add(accountId: string, type: string, at: string, data: unknown): Promise<Queued> {
    if (this.closed) return 'full';
    const waiting = await this.queue.waiting(accountId, TEST_EVENT);
    if (type === TEST_EVENT && waiting.ofType) return 'test-waiting';
    if (waiting.count >= QUEUE_CAP) {
      this.o.log.warn({ accountId, type }, 'webhooks: event dropped, the account’s queue is full');
      await this.attemptLog.add(accountId, {
        id: messageId(),
        type,
        attempt: 0,
        attempts: this.attempts,
        at: new Date().toISOString(),
        ms: 0,
        error: `not sent: ${QUEUE_CAP} deliveries were waiting for this endpoint already`,
        outcome: 'failed',
      });
      return 'full';
    }
    const id = messageId();
    const delivery: Delivery = { id, accountId, type, body: JSON.stringify({ type, timestamp: at, data }), attempt: 1, dueAt: Date.now() };
    await this.queue.add(delivery);
    this.wake(0);
    return 'queued';
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
    if (this.inFlight.size < MAX_IN_FLIGHT) {
      const busy = new Map<string, number>();
      for (const f of this.inFlight.values()) busy.set(f.accountId, (busy.get(f.accountId) ?? 0) + 1);
      // More than the free places: some of those read may belong to accounts at their limit here.
      for (const d of await this.queue.due(now, MAX_IN_FLIGHT * 2, PER_ACCOUNT)) {
        if (this.closed) return;
        if (this.inFlight.size >= MAX_IN_FLIGHT) break;
        if (this.inFlight.has(d.id) || (busy.get(d.accountId) ?? 0) >= PER_ACCOUNT) continue;
        busy.set(d.accountId, (busy.get(d.accountId) ?? 0) + 1);
        this.send(d);
      }
    }
    const due = await this.queue.nextDue(now);
    if (due !== undefined) next = Math.min(next, due);
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
    this.inFlight.set(d.id, { accountId: d.accountId, stop, done });
  }

  private async attempt(d: Delivery, signal: AbortSignal) {
    // Another instance may hold it, or have made this attempt since the queue was read.
    if (!(await this.queue.claim(d, this.holder, Date.now(), this.o.timeoutMs + 60_000))) return;
    let settled = false;
    try {
      if (signal.aborted) return;
      const settings = await this.o.settings.get(d.accountId);
      if (!settings || settings.stopped) {
        // The webhook was removed or stopped since: what was queued for it is dropped.
        await this.queue.end(d.id, this.holder);
        settled = true;
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
      settled = true;
    } finally {
      if (!settled) await this.queue.release(d.id, this.holder);
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
    // The page's line and the queue's next step together: a retry is never queued without its line.
    await this.o.db.transaction().execute(async (trx) => {
      await new AttemptLog(trx).add(d.accountId, record);
      const queue = new DeliveryQueue(trx);
      await (nextAt !== undefined ? queue.retryAt(d.id, this.holder, nextAt) : queue.end(d.id, this.holder));
    });
    if (nextAt !== undefined) return this.wake(nextAt);
    if (gone) await this.o.settings.stop(d.accountId, 'The endpoint answered 410 Gone: it asked for no more deliveries.');
    if (!ok)
      this.o.log.warn({ accountId: d.accountId, deliveryId: d.id, type: d.type, status, error }, `webhooks: delivery ${record.outcome}`);
  }
}
