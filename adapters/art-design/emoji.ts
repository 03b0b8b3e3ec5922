// EmojiHub's API over embedded emojibase data. Modes: random (default) and all, both narrowed by
// category and/or group; categories and groups list the names; search matches a name substring; similar
// lists names sharing a word of 3+ letters with q. Slugs take `-` for spaces, as EmojiHub's paths do.
import { missingParam, notFound, reply } from '../../engine/adapter.js';
import type { Adapter, EmojiParams } from './_catalog.js';
import { emojiData, type Emoji } from './_emoji-data.js';

const unslug = (v: unknown) => String(v).trim().toLowerCase().replace(/[-_]+/g, ' ').replace(/\s+/g, ' ');
const words = (s: string) =>
  s
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter((w) => w.length > 2);

function filtered(params: EmojiParams): Emoji[] {
  const { all, categories, groups } = emojiData();
  let list = all;
  if (params.category !== undefined) {
    const category = unslug(params.category);
    if (!categories.includes(category)) throw notFound('emojis with this category do not exist');
    list = list.filter((e) => e.category === category);
  }
  if (params.group !== undefined) {
    const group = unslug(params.group);
    if (!groups.includes(group)) throw notFound('emojis with this group do not exist');
    list = list.filter((e) => e.group === group);
  }
  return list;
}

const emoji: Adapter<'art-design/emoji'> = async (params) => {
  const mode = params.mode;
  const q = params.q?.trim().toLowerCase();
  if ((mode === 'search' || mode === 'similar') && !q) throw missingParam('q'); // only blanks: the catalog requires q
  const slugs = (names: string[]) => ({ items: names, slugs: names.map((n) => n.replace(/ /g, '-')) });

  switch (mode) {
    case 'categories':
      return slugs(emojiData().categories);
    case 'groups':
      return slugs(emojiData().groups);
    case 'all': {
      const items = filtered(params);
      return { total: items.length, items };
    }
    case 'search': {
      const items = filtered(params).filter((e) => e.name.includes(q!));
      return { total: items.length, items };
    }
    case 'similar': {
      const wanted = new Set(words(q!));
      const items = filtered(params).filter((e) => e.name !== q && words(e.name).some((w) => wanted.has(w)));
      return { total: items.length, items };
    }
    default: {
      const list = filtered(params);
      if (list.length === 0) throw notFound('emojis with this category and group do not exist');
      return reply({ data: { ...list[Math.floor(Math.random() * list.length)] }, cacheable: false });
    }
  }
};

export default emoji;
