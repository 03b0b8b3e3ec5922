// The office-series upstream only serves one quote by id, one season, one episode and a random quote.
// Searching quotes, listing characters and picking random episodes need the whole data set, so it is
// built once per process from /quote/1…N and /season/1…S (a few calls at a time, never bursting),
// kept for 7 days, and rebuilt in the background when stale. Until the first build is done the
// endpoint answers 503 with Retry-After (see docs/decisions/adapters-quotes-museums-books.md).
import type { Logger } from 'pino';
import { upstreamBusy, type UpstreamClient } from '../../engine/adapter.js';
import { isRecord, unexpectedShape } from './_quotes.js';

export type OfficeRecord = Record<string, unknown>;

export interface OfficeCorpus {
  quotes: OfficeRecord[];
  episodes: OfficeRecord[];
  builtAt: number;
}

const TTL_MS = 7 * 24 * 3600_000;
/** After a failed build, wait this long before trying again, so a dead upstream is not hammered. */
const RETRY_AFTER_FAILURE_MS = 60_000;

interface Slot {
  corpus?: OfficeCorpus;
  building?: Promise<void>;
  failedAt?: number;
}

/** One corpus per upstream base URL (tests run several fakes in one process). */
const slots = new Map<string, Slot>();

/** `/quote/{n}` and `/season/{s}` answer HTTP 400 `{ok:false}` for ids that do not exist. */
async function fetchOne(client: UpstreamClient, path: string): Promise<unknown> {
  const res = await client.request({ path, allowStatus: [400] });
  return res.status === 400 ? undefined : res.body;
}

/** Ids 1…max, `concurrency` at a time; past max it goes on while a whole round still finds records. */
async function collect(client: UpstreamClient, prefix: string, max: number, concurrency: number): Promise<unknown[]> {
  const found: unknown[] = [];
  for (let start = 1; ; start += concurrency) {
    const ids = Array.from({ length: concurrency }, (_, i) => start + i);
    const got = (await Promise.all(ids.map((id) => fetchOne(client, `${prefix}/${id}`)))).filter((b) => b !== undefined);
    found.push(...got);
    if (start + concurrency > max && got.length === 0) return found;
    if (start > max * 4) return found; // a runaway upstream that answers every id
  }
}

async function build(client: UpstreamClient): Promise<OfficeCorpus> {
  const s = client.settings;
  const concurrency = Math.min(4, Math.max(1, Number(s.concurrency) || 4));
  const quotes = (await collect(client, '/quote', Number(s.quoteCount) || 298, concurrency)).filter(
    (q): q is OfficeRecord => isRecord(q) && typeof q.quote === 'string',
  );
  const seasons = await collect(client, '/season', Number(s.seasons) || 9, concurrency);
  if (seasons.some((x) => !Array.isArray(x))) throw unexpectedShape();
  const episodes = (seasons as unknown[][]).flat().filter(isRecord);
  if (!quotes.length || !episodes.length) throw unexpectedShape();
  return { quotes, episodes, builtAt: Date.now() };
}

/** The corpus when ready (starting or refreshing a build as needed); a 503 while the first build runs. */
export function officeCorpus(client: UpstreamClient, log: Logger): OfficeCorpus {
  const key = client.baseUrl ?? client.id;
  const slot = slots.get(key) ?? {};
  slots.set(key, slot);
  const stale = !slot.corpus || Date.now() - slot.corpus.builtAt > TTL_MS;
  const mayRetry = !slot.failedAt || Date.now() - slot.failedAt > RETRY_AFTER_FAILURE_MS;
  if (stale && !slot.building && mayRetry) {
    log.info('office-series: building the quote and episode index');
    slot.building = build(client)
      .then((corpus) => {
        slot.corpus = corpus;
        slot.failedAt = undefined;
        log.info({ quotes: corpus.quotes.length, episodes: corpus.episodes.length }, 'office-series: index ready');
      })
      .catch((err: unknown) => {
        slot.failedAt = Date.now();
        log.warn({ err: (err as Error).message }, 'office-series: index build failed');
      })
      .finally(() => {
        slot.building = undefined;
      });
  }
  if (slot.corpus) return slot.corpus;
  throw upstreamBusy('The office-series index is being built from the upstream; try again in a minute', 30);
}

/** The distinct speakers of the quotes, most quoted first. */
export function officeCharacters(corpus: OfficeCorpus) {
  const byName = new Map<string, { name: string; avatar_url: string | null; quote_count: number }>();
  for (const q of corpus.quotes) {
    const name = typeof q.character === 'string' ? q.character : 'Unknown';
    const c = byName.get(name) ?? {
      name,
      avatar_url: typeof q.character_avatar_url === 'string' ? q.character_avatar_url : null,
      quote_count: 0,
    };
    c.quote_count++;
    byName.set(name, c);
  }
  return [...byName.values()].sort((a, b) => b.quote_count - a.quote_count || a.name.localeCompare(b.name));
}
