// X/Twitter videos, GIFs and images: cobalt, else (not configured, or failing) the keyless FxTwitter.
// Both need a post link; the post id is the number after /status/.
import type { Adapter } from '../../engine/adapter.js';
import { cobaltThen } from './_fallback.js';
import { fxtwitter, FXTWITTER } from './_fxtwitter.js';
import { siteUrl } from './_media.js';

const HOSTS = ['twitter.com', 'www.twitter.com', 'mobile.twitter.com', 'x.com', 'www.x.com', 'mobile.x.com'];
// The catalog's pattern for url, with the id captured: a url that passed validation matches it.
const STATUS_ID = /^[^?#]*\/status(?:es)?\/(\d{1,25})(?:[/?#]|$)/;

const dlE: Adapter = async (params, ctx) => {
  const url = siteUrl(params.url, HOSTS);
  const id = STATUS_ID.exec(String(params.url))![1];
  return cobaltThen(ctx, url.href, FXTWITTER, () => fxtwitter(ctx, id));
};

export default dlE;
