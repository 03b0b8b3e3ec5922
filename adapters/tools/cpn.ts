// Coupons of an online store, read from Dealspotr's pages (no API exists). The listing page shows the
// offers with their codes hidden; the page of one offer's id (the digits of the first card's id) shows
// every card with its code in a hidden input. Selectors and paths live in catalog/upstreams.yaml
// (`dealspotr.settings`) because the markup drifts. A bot-check page is the provider failing (502),
// never "no coupons".
import type { CheerioAPI } from 'cheerio';
import { invalidParam, upstreamFailed, upstreamChanged, type AdapterContext, hostOfDomain } from '../../engine/adapter.js';
import type { Adapter } from './_catalog.js';

const BROWSER_UA = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0 Safari/537.36';

interface Settings {
  listingPath: string;
  revealPath: string;
  selectors: { card: string; title: string; code: string; store: string };
  antiBot: string[];
}

function settingsOf(ctx: AdapterContext<'dealspotr'>): Settings {
  const s = ctx.upstream('dealspotr').settings as Partial<Settings>;
  return {
    listingPath: s.listingPath ?? '/promo-codes/{domain}',
    revealPath: s.revealPath ?? '/promo-codes/{domain}/{id}',
    selectors: { card: 'div.copy-code', title: 'div.promoblock--title', code: 'input.dnone[type=text]', store: 'h1', ...s.selectors },
    antiBot: s.antiBot ?? [],
  };
}

const text = (s: string | undefined): string => (s ?? '').replace(/\s+/g, ' ').trim();

function coupons($: CheerioAPI, sel: Settings['selectors']): Array<{ code: string | null; title: string }> {
  return $(sel.card)
    .toArray()
    .map((card) => {
      const title = text($(card).find(sel.title).first().text());
      const code = text($(card).find(sel.code).first().attr('value'));
      return { code: code || null, title };
    })
    .filter((c) => c.title || c.code)
    .map((c) => ({ code: c.code, title: c.title || (c.code as string) }));
}

/** "Nike promo codes & coupons" → "Nike". */
function storeName($: CheerioAPI, sel: Settings['selectors']): string | null {
  const h = text($(sel.store).first().text()).replace(/\s+(promo codes?|coupons?|coupon codes?|discount codes?)\b.*$/i, '');
  return h || null;
}

const cpn: Adapter<'tools/cpn'> = async (params, ctx) => {
  const domain = hostOfDomain(params.domain, { stripWww: true });
  if (!domain) throw invalidParam('domain', 'must be a domain name such as example.com');
  const s = settingsOf(ctx);
  const api = ctx.upstream('dealspotr');
  const get = (path: string, allow404 = false) =>
    api.request<string>({
      path,
      responseType: 'text',
      headers: { 'user-agent': BROWSER_UA, referer: 'https://dealspotr.com/', accept: 'text/html' },
      allowStatus: allow404 ? [404] : undefined,
      notFoundMessage: `No coupon page for ${domain}`,
    });

  const listingHtml = (await get(s.listingPath.replace('{domain}', encodeURIComponent(domain)))).body;
  // cheerio is imported on the first call: it costs a few hundred milliseconds of boot otherwise.
  const { load } = await import('cheerio');
  const listing = load(listingHtml);
  const cards = listing(s.selectors.card);
  const store = storeName(listing, s.selectors);
  if (cards.length === 0) {
    const lower = listingHtml.toLowerCase();
    if (s.antiBot.some((m) => lower.includes(m.toLowerCase()))) throw upstreamFailed('The coupon site answered with a bot check');
    if (!store) throw upstreamChanged('The coupon site answered with a page we do not recognise');
    return { domain, store, total: 0, items: [] };
  }

  let items = coupons(listing, s.selectors);
  const id = /\d+/.exec(cards.first().attr('id') ?? '')?.[0];
  if (id) {
    const reveal = await get(s.revealPath.replace('{domain}', encodeURIComponent(domain)).replace('{id}', id), true);
    // An offer gone between the two calls: keep the listing's titles, codes unknown.
    if (reveal.status === 200) {
      const revealed = coupons(load(reveal.body), s.selectors);
      if (revealed.length) items = revealed;
    }
  }
  return { domain, store, total: items.length, items };
};

export default cpn;
