// TikTok without watermark through cobalt; the catalog's fallback (tikwm, dl-d-tikwm.ts) answers when
// cobalt is not configured, fails or is unavailable.
import type { Adapter } from './_catalog.js';
import { cobalt, COBALT } from './_cobalt.js';
import { downloadReply, siteUrl } from './_media.js';
import { TIKTOK_HOSTS } from './_tikwm.js';

const dlD: Adapter<'downloaders/dl-d'> = async (params, ctx) =>
  downloadReply(await cobalt(ctx, siteUrl(params.url, TIKTOK_HOSTS).href), COBALT);

export default dlD;
