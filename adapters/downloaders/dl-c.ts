// Instagram through cobalt: posts, reels and IGTV (carousels come back as a picker). Only post-like paths
// are accepted; a profile page has nothing to download.
import { invalidParam } from '../../engine/errors.js';
import type { Adapter } from '../../engine/types.js';
import { cobalt, COBALT } from './_cobalt.js';
import { downloadReply, siteUrl } from './_media.js';

const HOSTS = ['instagram.com', 'www.instagram.com'];
// /p/<code>, /reel/<code>, /reels/<code>, /tv/<code>, also behind a username (/<user>/p/<code>).
const POST_PATH = /^\/(?:[A-Za-z0-9._]{1,30}\/)?(?:p|reels?|tv)\/[A-Za-z0-9_-]+\/?$/;

const dlC: Adapter = async (params, ctx) => {
  const url = siteUrl(params.url, HOSTS);
  if (!POST_PATH.test(url.pathname)) throw invalidParam('url', 'must link to an Instagram post, reel or IGTV video (/p/, /reel/ or /tv/)');
  return downloadReply(await cobalt(ctx, url.href), COBALT);
};

export default dlC;
