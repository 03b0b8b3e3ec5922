// TikTok without watermark through the keyless tikwm: dl-d's fallback provider (catalog/downloaders.yaml).
import type { Adapter } from './_catalog.js';
import { downloadReply, siteUrl } from './_media.js';
import { tikwm, TIKWM, TIKTOK_HOSTS } from './_tikwm.js';

const dlDTikwm: Adapter<'downloaders/dl-d-tikwm'> = async (params, ctx) =>
  downloadReply(await tikwm(ctx, siteUrl(params.url, TIKTOK_HOSTS).href), TIKWM);

export default dlDTikwm;
