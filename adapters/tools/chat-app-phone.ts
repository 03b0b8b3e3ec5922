// The public Telegram profile of a username (t.me/<name>), with a phone number only when the owner wrote
// one in the public bio. Nothing else is looked up: messaging apps never show a member's number to
// strangers, and "id → phone" services run on leaked databases (see docs/decisions/chat-app-phone.md).
// Numeric chat ids have no public page at all, so they are refused rather than guessed at.
import { findPhoneNumbersInText } from 'libphonenumber-js/max';
import { invalidParam, notFound, upstreamChanged } from '../../engine/adapter.js';
import type { Adapter } from './_catalog.js';

const NOTE = 'Only public profile data is shown; a phone number appears only when the owner published it in the bio.';

/** `@name`, `name`, `t.me/name`, `https://t.me/name/` → `name` (the catalog pattern has checked the shape). */
function usernameOf(q: string): string {
  const name = q
    .trim()
    .replace(/^(?:https?:\/\/)?t\.me\//i, '')
    .replace(/^@/, '')
    .replace(/\/$/, '');
  if (/^\d+$/.test(name)) {
    throw invalidParam('q', 'numeric chat ids have no public profile; give a public username such as durov or @durov');
  }
  // Telegram usernames start with a letter; anything else cannot exist.
  if (!/^[A-Za-z][A-Za-z0-9_]{4,31}$/.test(name)) {
    throw invalidParam('q', 'must be a username of 5 to 32 letters, digits or underscores starting with a letter');
  }
  return name;
}

const clean = (s: string | undefined): string | null => {
  const t = (s ?? '').replace(/[ \t]+/g, ' ').trim();
  return t || null;
};

const chatAppPhone: Adapter<'tools/chat-app-phone'> = async (params, ctx) => {
  const username = usernameOf(params.q);
  const api = ctx.upstream('telegram-web');
  const sel = {
    title: '.tgme_page_title',
    extra: '.tgme_page_extra',
    description: '.tgme_page_description',
    ...(api.settings.selectors as object),
  };
  const { body } = await api.request<string>({
    path: `/${username}`,
    responseType: 'text',
    headers: { accept: 'text/html' },
    notFoundMessage: `No public profile for @${username}`,
  });
  // cheerio is imported on the first call: it costs a few hundred milliseconds of boot otherwise.
  const { load } = await import('cheerio');
  const $ = load(body);
  const meta = (p: string) => clean($(`meta[property="${p}"]`).attr('content'));

  // Telegram answers 200 for unknown names too, with its generic "Contact @name" page and no title block.
  const title = clean($(sel.title).first().text());
  if (!title) {
    // Not even Telegram's page frame: the markup changed or something else answered.
    if (!$('.tgme_page').length && !$('meta[property="og:site_name"]').length)
      throw upstreamChanged('The messaging site answered with a page we do not recognise');
    throw notFound(`No public profile for @${username}`);
  }

  // The description block keeps line breaks; og:description is the fallback.
  const descEl = $(sel.description).first();
  descEl.find('br').replaceWith('\n');
  // Without a bio, og:description is Telegram's boilerplate "You can contact @name right away."
  const ogBio = meta('og:description');
  const bio = clean(descEl.text()) ?? (ogBio && !/^You can contact @\w+ right away\.?$/i.test(ogBio) ? ogBio : null);
  const photo = meta('og:image');
  const phone = bio ? (findPhoneNumbersInText(bio)[0]?.number.number ?? null) : null;
  return {
    username,
    display_name: meta('og:title') ?? title,
    bio,
    // Telegram's own logo stands in when there is no photo.
    photo_url: photo && !/telegram\.org\/img\//.test(photo) ? photo : null,
    extra: clean($(sel.extra).first().text()),
    profile_url: `https://t.me/${username}`,
    phone,
    phone_source: phone ? 'bio' : null,
    note: NOTE,
  };
};

export default chatAppPhone;
