// A text paste, hosted by the service with pastebin's semantics: a title, a syntax code (shown on the page,
// no highlighting script runs), public (0) or unlisted (1), and pastebin's expiry codes (months as fixed
// lengths, see _expiry.ts). There is no listing of pastes at all, so "unlisted" means what it says: only
// someone given the link (8 random characters) finds it; its pages also tell search engines not to index.
import { invalidParam, reply } from '../../engine/adapter.js';
import type { Adapter } from './_catalog.js';
import { PASTE_EXPIRY } from './_expiry.js';
import { cleanTitle } from './_names.js';

const pasteHost: Adapter<'cloud-storage/paste-host'> = async (params, ctx) => {
  const text = params.paste;
  if (text.trim() === '') throw invalidParam('paste', 'must not be blank');
  const name = cleanTitle(params.name) || 'Untitled';
  const format = params.format;
  const isPrivate = params.private;
  const expire = params.expire;
  const ttlSeconds = PASTE_EXPIRY[expire]; // one of them: the catalog's enum

  const meta = await ctx.blobs.put({
    bytes: Buffer.from(text, 'utf8'),
    contentType: 'text/plain; charset=utf-8',
    ttlSeconds,
    kind: 'paste',
    name,
    format,
    private: isPrivate,
    expire,
  });
  return reply({
    data: {
      id: meta.id,
      url: ctx.blobs.url(meta),
      raw_url: ctx.blobs.url(meta, '/raw'),
      name,
      format,
      private: isPrivate,
      expire,
      expires_at: meta.expiresAt,
      size: meta.size,
    },
    cacheable: false,
  });
};

export default pasteHost;
