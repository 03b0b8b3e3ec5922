// X/Twitter videos, GIFs and images through cobalt; the catalog's fallback (FxTwitter, dl-e-fxtwitter.ts)
// answers when cobalt is not configured, fails or is unavailable.
import type { Adapter } from './_catalog.js';
import { cobalt, COBALT } from './_cobalt.js';
import { X_HOSTS } from './_fxtwitter.js';
import { downloadReply, siteUrl } from './_media.js';

const dlE: Adapter<'downloaders/dl-e'> = async (params, ctx) => downloadReply(await cobalt(ctx, siteUrl(params.url, X_HOSTS).href), COBALT);

export default dlE;
