// YouTube through cobalt. cobalt tells us no title or picture in its classic answer, but YouTube's
// thumbnail address is public and fixed per video id, so dl-a adds it.
// (Datacenter IPs meet "Sign in to confirm you're not a bot": the cobalt instance needs a PO token.)
import type { Adapter } from './_catalog.js';
import { cobalt, COBALT } from './_cobalt.js';
import { downloadReply, siteUrl } from './_media.js';

const HOSTS = ['youtube.com', 'www.youtube.com', 'm.youtube.com', 'music.youtube.com', 'youtu.be'];

/** watch?v=ID, youtu.be/ID, /shorts/ID, /embed/ID, /live/ID, /v/ID. */
function videoId(u: URL): string | undefined {
  const id =
    u.hostname === 'youtu.be'
      ? u.pathname.split('/')[1]
      : (u.searchParams.get('v') ?? /^\/(?:shorts|embed|live|v)\/([^/?#]+)/.exec(u.pathname)?.[1]);
  return id && /^[A-Za-z0-9_-]{11}$/.test(id) ? id : undefined;
}

const dlA: Adapter<'downloaders/dl-a'> = async (params, ctx) => {
  const url = siteUrl(params.url, HOSTS);
  const download = await cobalt(ctx, url.href);
  const id = videoId(url);
  if (id) download.thumbnail ??= `https://i.ytimg.com/vi/${id}/hqdefault.jpg`;
  return downloadReply(download, COBALT);
};

export default dlA;
