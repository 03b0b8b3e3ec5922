// The shared store in Redis: short-lived documents are string keys with an expiry; counters are hashes and
// lists are lists, each with an expiry renewed on write. Changes are announced on a pub/sub channel heard by
// every instance.
import type { RedisClientType } from 'redis';
import type { Logger } from 'pino';
import type { Store, WriteOp } from './types.js';

/** How long the id of a write made once is kept: longer than any wait to send it again. */
const WRITTEN_KEPT_MS = 2 * 3_600_000;

export class RedisStore implements Store {
  readonly kind = 'redis' as const;
  private readonly listeners: ((topic: string) => void)[] = [];
  private subscriber: RedisClientType | undefined;
  private readonly channel: string;

  constructor(
    private readonly redis: RedisClientType,
    private readonly prefix: string,
    readonly where: string,
    private readonly log?: Logger,
  ) {
    this.channel = `${prefix}changes`;
  }

  /** Starts hearing other instances' announcements (a second connection, as pub/sub needs one). */
  async listen(): Promise<void> {
    const sub = this.redis.duplicate() as RedisClientType;
    sub.on('error', (err: Error) => this.log?.debug({ err: err.message }, 'store subscriber'));
    this.subscriber = sub;
    // A dropped subscription may have missed announcements: on every (re)connection, assume a change.
    sub.on('ready', () => this.emit('*'));
    await sub.connect();
    await sub.subscribe(this.channel, (topic) => this.emit(topic));
  }

  private k(coll: string) {
    return this.prefix + coll;
  }

  async tempEntries<T>(coll: string) {
    const head = `${this.k(coll)}:`;
    const keys: string[] = [];
    for await (const batch of this.redis.scanIterator({ MATCH: `${head.replace(/[*?[\]\\]/g, '\\$&')}*`, COUNT: 500 })) keys.push(...batch);
    if (!keys.length) return [];
    const values = await this.redis.mGet(keys);
    return keys.flatMap((key, i): [string, T][] => (values[i] ? [[key.slice(head.length), JSON.parse(values[i]) as T]] : []));
  }

  async write(ops: WriteOp[], once?: string) {
    if (!ops.length) return;
    const m = this.redis.multi();
    // The id is recorded in the same transaction as the writes, so it is there exactly when they were made.
    const mark = once === undefined ? undefined : `${this.prefix}written:${once}`;
    if (mark !== undefined) {
      if ((await this.redis.exists(mark)) === 1) return;
      m.set(mark, '1', { PX: WRITTEN_KEPT_MS });
    }
    for (const op of ops) {
      if (op.kind === 'add') {
        const key = `${this.k(op.coll)}:${op.id}`;
        for (const [field, by] of Object.entries(op.add)) m.hIncrBy(key, field, by);
        m.pExpire(key, op.ttlMs);
      } else if (op.kind === 'push') {
        const key = this.k(op.list);
        m.rPush(key, op.items);
        m.lTrim(key, -op.cap, -1);
        m.pExpire(key, op.ttlMs);
      } else {
        m.set(`${this.k(op.coll)}:${op.id}`, JSON.stringify(op.doc), { PX: Math.max(1, Math.round(op.ttlMs)) });
      }
    }
    await (mark === undefined ? m.execAsPipeline() : m.exec());
  }
  async counters(coll: string, id: string) {
    return numbers(await this.redis.hGetAll(`${this.k(coll)}:${id}`));
  }
  async countersMany(coll: string, ids: string[]) {
    if (!ids.length) return [];
    const m = this.redis.multi();
    for (const id of ids) m.hGetAll(`${this.k(coll)}:${id}`);
    const replies = (await m.execAsPipeline()) as unknown as Record<string, string>[];
    return replies.map(numbers);
  }
  async recent(list: string, n: number) {
    return (await this.redis.lRange(this.k(list), -n, -1)).reverse();
  }

  async announce(topic: string) {
    this.emit(topic);
    await this.redis.publish(this.channel, topic);
  }
  onAnnounce(listener: (topic: string) => void) {
    this.listeners.push(listener);
  }
  async close() {
    const sub = this.subscriber;
    this.subscriber = undefined;
    if (sub?.isOpen) await sub.close().catch(() => sub.destroy());
  }

  private emit(topic: string) {
    for (const l of this.listeners) l(topic);
  }
}

function numbers(h: Record<string, string>): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [k, v] of Object.entries(h ?? {})) out[k] = Number(v);
  return out;
}
