// TikTok without watermark: cobalt, else (not configured, or failing) the keyless tikwm.
import type { Adapter } from '../../engine/adapter.js';
import { cobaltThen } from './_fallback.js';
import { siteUrl } from './_media.js';
import { tikwm, TIKWM } from './_tikwm.js';

const HOSTS = ['tiktok.com', 'www.tiktok.com', 'm.tiktok.com', 'vm.tiktok.com', 'vt.tiktok.com'];

const dlD: Adapter = async (params, ctx) => {
  const url = siteUrl(params.url, HOSTS);
  return cobaltThen(ctx, url.href, TIKWM, () => tikwm(ctx, url.href));
};

export default dlD;
