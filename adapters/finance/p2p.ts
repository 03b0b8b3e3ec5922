// Binance P2P ads through the web app's undocumented search call. `type` is the caller's side: BUY
// lists the ads of people selling the asset (Binance's tradeType means the same thing). Binance reports
// failures inside a 200 (`code` other than "000000") and blocks bots with 403/429: a 502 and a 503.
// Amounts stay strings, as Binance sends them, so no precision is lost.
import { upstreamBusy, upstreamFailed, isRecord, num, record, records } from '../../engine/adapter.js';
import type { Adapter } from './_catalog.js';

const BROWSER_UA = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0 Safari/537.36';

const amount = (v: unknown): string | null => (typeof v === 'string' ? v : typeof v === 'number' && Number.isFinite(v) ? String(v) : null);

const p2p: Adapter<'finance/p2p'> = async (params, ctx) => {
  // Two to ten letters (the catalog's patterns), sent in capitals.
  const asset = params.asset.toUpperCase();
  const fiat = params.fiat.toUpperCase();
  const tradeType = params.type;
  const api = ctx.upstream('binance-p2p');
  const rows = Math.min(20, Number(api.settings.rows ?? 20));
  const res = await api.request({
    path: String(api.settings.searchPath ?? '/bapi/c2c/v2/friendly/c2c/adv/search'),
    method: 'POST',
    headers: { clienttype: 'web', lang: 'en', 'user-agent': BROWSER_UA },
    json: { asset, fiat, tradeType, page: 1, rows, payTypes: [], publisherType: null, merchantCheck: false },
    allowStatus: [403],
  });
  if (res.status === 403) throw upstreamBusy('The P2P market refused the request (bot protection); try again later', 60);

  const body = record(res.body);
  if (body.code !== '000000') throw upstreamFailed('The P2P market answered with an error');
  // An ad without a price is of no use to anyone.
  const ads = records(body.data ?? []).filter((e) => isRecord(e.adv) && amount(e.adv.price) !== null);
  const items = ads.map((entry) => {
    const adv = isRecord(entry.adv) ? entry.adv : {};
    const who = isRecord(entry.advertiser) ? entry.advertiser : {};
    return {
      price: amount(adv.price) as string,
      available: amount(adv.surplusAmount),
      min: amount(adv.minSingleTransAmount),
      max: amount(adv.maxSingleTransAmount),
      pay_methods: (Array.isArray(adv.tradeMethods) ? adv.tradeMethods : [])
        .filter(isRecord)
        .map((m) => m.tradeMethodName ?? m.identifier)
        .filter((m): m is string => typeof m === 'string'),
      advertiser: {
        nickname: typeof who.nickName === 'string' ? who.nickName : null,
        month_orders: num(who.monthOrderCount) ?? null,
        month_finish_rate: num(who.monthFinishRate) ?? null,
        type: typeof who.userType === 'string' ? who.userType : null,
      },
    };
  });
  return { asset, fiat, type: tradeType, total: num(body.total) ?? items.length, items };
};

export default p2p;
