// Instagram through cobalt: posts, reels and IGTV (carousels come back as a picker). Only post-like paths
// are accepted (the catalog's pattern); a profile page has nothing to download.
import type { Adapter } from './_catalog.js';
import { cobalt, COBALT } from './_cobalt.js';
import { downloadReply, siteUrl } from './_media.js';

const HOSTS = ['instagram.com', 'www.instagram.com'];

const dlC: Adapter<'downloaders/dl-c'> = async (params, ctx) => {
  const url = siteUrl(params.url, HOSTS);
  return downloadReply(await cobalt(ctx, url.href), COBALT);
};

export default dlC;
