// emojibase-data (en) reshaped into EmojiHub's records: {name, category, group, htmlCode, unicode} (+ the
// emoji itself), with EmojiHub's 8 categories and 37 groups mapped from emojibase's groups and subgroups.
//
// Skin tones: emojibase lists tone variants under `skins`; we keep the base emoji only. EmojiHub's 1,791
// entries carry tone variants for a few old person emojis only, and flattening all of emojibase's ~2,000
// variants would make most random picks a toned hand. The five tone modifiers themselves are in the group
// "skin tone", so a client can compose any variant.
import fs from 'node:fs';
import path from 'node:path';
import { dataDir } from '../../engine/adapter.js';

export interface Emoji {
  name: string;
  category: string;
  group: string;
  htmlCode: string[];
  unicode: string[];
  emoji: string;
}

interface BaseEmoji {
  label: string;
  hexcode: string;
  emoji: string;
  group?: number;
  subgroup?: number;
}
interface GroupsMeta {
  groups: Record<string, string>;
  subgroups: Record<string, string>;
}

/** emojibase group → EmojiHub category (component holds skin tones and hair styles). */
const CATEGORY: Record<string, string> = {
  'smileys-emotion': 'smileys and people',
  'people-body': 'smileys and people',
  component: 'smileys and people',
  'animals-nature': 'animals and nature',
  'food-drink': 'food and drink',
  'travel-places': 'travel and places',
  activities: 'activities',
  objects: 'objects',
  symbols: 'symbols',
  flags: 'flags',
};

/** emojibase subgroup → EmojiHub group, where EmojiHub merged or renamed them. */
const GROUP: Record<string, string> = {
  'face-smiling': 'face positive',
  'face-affection': 'face positive',
  'face-tongue': 'face positive',
  'face-hand': 'face positive',
  'face-neutral-skeptical': 'face neutral',
  'face-sleepy': 'face neutral',
  'face-concerned': 'face negative',
  'face-negative': 'face negative',
  'face-unwell': 'face sick',
  'face-hat': 'face role',
  'face-glasses': 'face role',
  'face-costume': 'creature face',
  heart: 'emotion',
  'hand-fingers-open': 'body',
  'hand-fingers-partial': 'body',
  'hand-single-finger': 'body',
  'hand-fingers-closed': 'body',
  hands: 'body',
  'hand-prop': 'body',
  'body-parts': 'body',
  'person-role': 'person role',
  'person-fantasy': 'person role',
  'person-sport': 'person activity',
  'person-resting': 'person activity',
  // Speaking head, silhouettes, footprints: EmojiHub has no group of its own for them.
  'person-symbol': 'person',
  'hair-style': 'skin tone',
  'food-marine': 'food asian',
};

/** Categories whose subgroups EmojiHub folds into one group named after the category. */
const FLAT = new Set(['travel and places', 'activities', 'objects', 'symbols', 'flags']);

let cache: { all: Emoji[]; categories: string[]; groups: string[] } | undefined;

function toRecord(e: BaseEmoji, meta: GroupsMeta): Emoji | undefined {
  // Regional indicator letters have no group in emojibase: they are flag parts, not emojis.
  if (e.group === undefined || e.subgroup === undefined) return undefined;
  const sub = meta.subgroups[String(e.subgroup)];
  let category = CATEGORY[meta.groups[String(e.group)]];
  let group: string;
  if (sub === 'clothing') {
    // EmojiHub lists clothing among smileys and people.
    category = 'smileys and people';
    group = 'clothing';
  } else if (FLAT.has(category)) group = category;
  else group = GROUP[sub] ?? sub.replace(/-/g, ' ');
  const points = e.hexcode.split('-').map((h) => parseInt(h, 16));
  return {
    name: e.label.toLowerCase(),
    category,
    group,
    htmlCode: points.map((p) => `&#${p};`),
    // Code points as written in Unicode charts and by EmojiHub: at least four hex digits (U+00A9, U+0023).
    unicode: points.map((p) => `U+${p.toString(16).toUpperCase().padStart(4, '0')}`),
    emoji: e.emoji,
  };
}

export function emojiData(): { all: Emoji[]; categories: string[]; groups: string[] } {
  if (!cache) {
    // emojibase-data's English list and group names, kept in emoji-data/ (scripts/data-files.mjs makes them).
    const read = <T>(file: string) => JSON.parse(fs.readFileSync(path.join(dataDir(import.meta.url, 'emoji-data'), file), 'utf8')) as T;
    const data = read<BaseEmoji[]>('data.json');
    const meta = read<GroupsMeta>('groups.json');
    const all = data.map((e) => toRecord(e, meta)).filter((e): e is Emoji => e !== undefined);
    cache = { all, categories: [...new Set(all.map((e) => e.category))], groups: [...new Set(all.map((e) => e.group))] };
  }
  return cache;
}
