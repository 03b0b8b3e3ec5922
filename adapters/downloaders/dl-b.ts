// Facebook through cobalt. To offer several qualities, cobalt is asked once per quality of
// settings.qualities (1080, 720, 360) and the answers merged; the first quality's answer must succeed,
// the others may fail. (Many posts need login cookies on the cobalt instance.)
import type { Adapter } from './_catalog.js';
import { cobalt, COBALT } from './_cobalt.js';
import { dedupe, downloadReply, siteUrl, type Download } from './_media.js';

const HOSTS = ['facebook.com', 'www.facebook.com', 'm.facebook.com', 'web.facebook.com', 'fb.watch'];

const dlB: Adapter<'downloaders/dl-b'> = async (params, ctx) => {
  const url = siteUrl(params.url, HOSTS);
  const configured = ctx.upstream(COBALT).settings.qualities;
  const qualities = Array.isArray(configured) && configured.length ? configured.map(String) : [undefined];
  const [first, ...rest] = await Promise.allSettled(qualities.map((q) => cobalt(ctx, url.href, q)));
  if (first.status === 'rejected') throw first.reason;
  const merged: Download = { ...first.value, medias: [...first.value.medias] };
  // cobalt's tunnel links differ on every call even for one file, so another call only adds a media of a
  // quality not offered yet; one without a quality label cannot be told apart and is dropped.
  const offered = new Set(merged.medias.map((m) => `${m.type}:${m.quality}`));
  for (const r of rest) {
    if (r.status !== 'fulfilled') continue;
    for (const m of r.value.medias) {
      const key = `${m.type}:${m.quality}`;
      if (m.quality && !offered.has(key)) {
        offered.add(key);
        merged.medias.push(m);
      }
    }
  }
  merged.medias = dedupe(merged.medias);
  return downloadReply(merged, COBALT);
};

export default dlB;
