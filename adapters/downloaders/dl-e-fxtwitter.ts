// X/Twitter videos, GIFs and images through the keyless FxTwitter: dl-e's fallback provider. It needs the
// post id: the number after /status/.
import type { Adapter } from './_catalog.js';
import { fxtwitter, FXTWITTER, X_HOSTS } from './_fxtwitter.js';
import { downloadReply, siteUrl } from './_media.js';

// The catalog's pattern for url, with the id captured: a url that passed validation matches it.
const STATUS_ID = /^[^?#]*\/status(?:es)?\/(\d{1,25})(?:[/?#]|$)/;

const dlEFxtwitter: Adapter<'downloaders/dl-e-fxtwitter'> = async (params, ctx) => {
  siteUrl(params.url, X_HOSTS);
  const id = STATUS_ID.exec(params.url)![1];
  return downloadReply(await fxtwitter(ctx, id), FXTWITTER);
};

export default dlEFxtwitter;
