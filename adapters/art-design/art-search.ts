// Colour palettes by keyword. ColorMagic (`colormagic`) is asked first, with a short 3 s budget; on any
// failure (unreachable, timeout, error status, a body that is not a list of palettes) or an empty answer,
// the embedded generator answers instead, and `source` says which one did. A failure opens colormagic's
// circuit breaker for a minute (its policy in catalog/upstreams.yaml), so an offline deployment does not
// pay the wait on every search; embedded answers are not cached, so the upstream is asked again once it is back.
import { missingParam, reply, type AdapterContext } from '../../engine/adapter.js';
import type { Adapter } from './_catalog.js';
import { embeddedPalettes, type Palette } from './_palettes.js';

const UPSTREAM_TIMEOUT_MS = 3000;

const HEX = /^#?[0-9a-f]{3}([0-9a-f]{3})?$/i;

/** ColorMagic's items, checked and reduced to {id, text, colors, tags}; undefined when the shape is wrong. */
function normalise(body: unknown): Palette[] | undefined {
  if (!Array.isArray(body)) return undefined;
  const out: Palette[] = [];
  for (const p of body) {
    if (typeof p !== 'object' || p === null) return undefined;
    const { id, text, colors, tags } = p as Record<string, unknown>;
    if (!Array.isArray(colors) || !colors.every((c) => typeof c === 'string' && HEX.test(c))) return undefined;
    out.push({
      id: id === undefined || id === null ? null : String(id),
      text: typeof text === 'string' ? text : null,
      // Some palette APIs send colours without `#`; ours always carry it.
      colors: (colors as string[]).map((c) => (c.startsWith('#') ? c : `#${c}`)),
      tags: Array.isArray(tags) ? tags.filter((t): t is string => typeof t === 'string') : [],
    });
  }
  return out;
}

async function fromUpstream(q: string, ctx: AdapterContext<'colormagic'>): Promise<Palette[] | undefined> {
  const client = ctx.upstream('colormagic');
  if (!client.baseUrl) return undefined;
  try {
    const res = await client.request({ path: '/palette/search', searchParams: { q }, timeoutMs: UPSTREAM_TIMEOUT_MS });
    const items = normalise(res.body);
    if (!items) ctx.log.warn('colormagic answered an unexpected shape; using embedded palettes');
    return items;
  } catch (err) {
    ctx.log.warn({ err: (err as Error).message }, 'colormagic failed; using embedded palettes');
    return undefined;
  }
}

const artSearch: Adapter<'art-design/art-search'> = async (params, ctx) => {
  const q = params.q.trim();
  if (!q) throw missingParam('q');
  const upstream = await fromUpstream(q, ctx);
  if (upstream && upstream.length > 0) return reply({ data: { items: upstream }, source: 'colormagic' });
  return reply({ data: { items: embeddedPalettes(q) }, source: 'embedded', cacheable: false });
};

export default artSearch;
