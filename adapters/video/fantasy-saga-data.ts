// An API of Ice and Fire. Quirks absorbed here:
// - a list body is a bare array; paging lives only in the Link header (rel="next"|"prev"|"first"|"last");
// - pageSize above 50 is silently clamped upstream (the catalog caps it at 50);
// - empty values come as "" or [""]: we give null and [];
// - past 20,000 calls a day per IP everything answers 403 for 24 h: we answer 503, and the upstream's
//   policy (catalog/upstreams.yaml) stops calling for an hour at a time instead of burning more of the day.
import { upstreamBusy, record, records, type Rec } from '../../engine/adapter.js';
import type { Adapter } from './_catalog.js';

const BLOCK_MS = 3600_000;
const BUSY = 'The saga data service has blocked this server for today; try again later';

function clean(x: Rec): Rec {
  const out: Rec = {};
  for (const [k, v] of Object.entries(x)) {
    if (v === '') out[k] = null;
    else if (Array.isArray(v)) out[k] = v.filter((e) => e !== '');
    else out[k] = v;
  }
  // The id is the last segment of the record's own url (…/characters/583).
  const id = typeof x.url === 'string' ? /\/(\d+)\/?$/.exec(x.url)?.[1] : undefined;
  return id ? { id: Number(id), ...out } : out;
}

/** `<…?page=3&pageSize=10>; rel="next", …` → { next: 3, … } */
function links(header: unknown): Record<string, number> {
  const out: Record<string, number> = {};
  for (const part of String(header ?? '').split(',')) {
    const m = /<([^>]+)>\s*;\s*rel="?([a-z]+)"?/i.exec(part);
    if (!m) continue;
    try {
      const page = new URL(m[1]).searchParams.get('page');
      if (page && /^\d+$/.test(page)) out[m[2].toLowerCase()] = Number(page);
    } catch {
      // an unreadable link is no paging information
    }
  }
  return out;
}

const fantasySagaData: Adapter<'video/fantasy-saga-data'> = async (params, ctx) => {
  const resource = params.resource;
  const api = ctx.upstream('iceandfire');

  const page = params.page;
  const pageSize = params.pageSize;
  const res = await api.request({
    path: params.id !== undefined ? `/${resource}/${params.id}` : `/${resource}`,
    searchParams: params.id !== undefined ? undefined : { page, pageSize },
    allowStatus: [403],
    notFoundMessage: `No ${resource.replace(/s$/, '')} with id ${params.id}`,
  });
  // The block's pause (an hour) is the upstream policy's; this answer is the first of it.
  if (res.status === 403) throw upstreamBusy(BUSY, BLOCK_MS / 1000);
  if (params.id !== undefined) return clean(record(res.body));

  const rel = links(res.headers.link);
  return {
    items: records(res.body).map(clean),
    page,
    pageSize,
    next_page: rel.next ?? null,
    last_page: rel.last ?? null,
  };
};

export default fantasySagaData;
