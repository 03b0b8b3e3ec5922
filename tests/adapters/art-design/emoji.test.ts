// art-design/emoji: EmojiHub's modes over embedded emojibase data, with EmojiHub's categories, groups,
// record shape and 404 messages.
import { upstreamSuite } from '../../helpers/upstream-suite.js';
import { expectAnswer, expectMatchesSchema } from '../../helpers/schema.js';

// Embedded: no upstream to fake, only the app.
const s = upstreamSuite({ endpoint: 'art-design/emoji', upstreams: {} });
const { get } = s;

const CATEGORIES = [
  'smileys and people',
  'animals and nature',
  'food and drink',
  'travel and places',
  'activities',
  'objects',
  'symbols',
  'flags',
];
const GROUPS = [
  'body',
  'cat face',
  'clothing',
  'creature face',
  'emotion',
  'face negative',
  'face neutral',
  'face positive',
  'face role',
  'face sick',
  'family',
  'monkey face',
  'person',
  'person activity',
  'person gesture',
  'person role',
  'skin tone',
  'animal amphibian',
  'animal bird',
  'animal bug',
  'animal mammal',
  'animal marine',
  'animal reptile',
  'plant flower',
  'plant other',
  'dishware',
  'drink',
  'food asian',
  'food fruit',
  'food prepared',
  'food sweet',
  'food vegetable',
  'travel and places',
  'activities',
  'objects',
  'symbols',
  'flags',
];

test('random (the default) answers one EmojiHub record', async () => {
  const res = await get();
  expectAnswer(res, 'embedded', 'art-design/emoji');
  expect(CATEGORIES).toContain(res.body.data.category);
  expect(GROUPS).toContain(res.body.data.group);
});

test('random narrowed by a category slug and by a group slug', async () => {
  const byCategory = await get({ mode: 'random', category: 'food-and-drink' });
  expect(byCategory.status).toBe(200);
  expect(byCategory.body.data.category).toBe('food and drink');
  const byGroup = await get({ group: 'face-positive' });
  expect(byGroup.status).toBe(200);
  expect(byGroup.body.data).toMatchObject({ category: 'smileys and people', group: 'face positive' });
});

test("categories and groups: EmojiHub's 8 and 37 names, with their slugs", async () => {
  const cats = await get({ mode: 'categories' });
  expect(cats.status).toBe(200);
  expectMatchesSchema('art-design/emoji', cats.body.data);
  expect([...cats.body.data.items].sort()).toEqual([...CATEGORIES].sort());
  expect(cats.body.data.slugs).toContain('smileys-and-people');
  const groups = await get({ mode: 'groups' });
  expect([...groups.body.data.items].sort()).toEqual([...GROUPS].sort());
});

test("all in a group: records in EmojiHub's shape, code points from the hexcode", async () => {
  const res = await get({ mode: 'all', group: 'face-positive' });
  expect(res.status).toBe(200);
  expectMatchesSchema('art-design/emoji', res.body.data);
  expect(res.body.data.total).toBe(res.body.data.items.length);
  expect(res.body.data.items).toContainEqual({
    name: 'grinning face',
    category: 'smileys and people',
    group: 'face positive',
    htmlCode: ['&#128512;'],
    unicode: ['U+1F600'],
    emoji: '😀',
  });
  expect(res.body.data.items.every((e: { group: string }) => e.group === 'face positive')).toBe(true);
});

test('all: every base emoji, without skin-tone variants; multi-code-point sequences keep every code point', async () => {
  const res = await get({ mode: 'all' });
  expect(res.status).toBe(200);
  expect(res.body.data.total).toBeGreaterThan(1800);
  // Each of them is a record that mode=random may draw: all must match the schema of one, not by luck of
  // the draw (the few below U+1000, keycaps and ©, once broke the schema of a random answer now and then).
  const bad = res.body.data.items.filter((e: object) => {
    try {
      expectMatchesSchema('art-design/emoji', e);
      return !CATEGORIES.includes((e as { category: string }).category) || !GROUPS.includes((e as { group: string }).group);
    } catch {
      return true;
    }
  });
  expect(bad).toEqual([]);
  expect(res.body.data.items.find((e: { name: string }) => e.name === 'copyright')).toMatchObject({
    htmlCode: ['&#169;'],
    unicode: ['U+00A9'],
  });
  expect(res.body.data.items.find((e: { name: string }) => e.name === 'keycap: #')).toMatchObject({
    unicode: ['U+0023', 'U+FE0F', 'U+20E3'],
  });
  const names: string[] = res.body.data.items.map((e: { name: string }) => e.name);
  expect(names).toContain('waving hand');
  expect(names.some((n) => n.includes('skin tone') && n.startsWith('waving hand'))).toBe(false);
  const heartOnFire = res.body.data.items.find((e: { name: string }) => e.name === 'heart on fire');
  expect(heartOnFire).toMatchObject({ group: 'emotion', unicode: ['U+2764', 'U+FE0F', 'U+200D', 'U+1F525'] });
  const flag = res.body.data.items.find((e: { name: string }) => e.name === 'flag: united states');
  expect(flag).toMatchObject({ category: 'flags', group: 'flags' });
});

test('clothing sits in smileys and people, as in EmojiHub', async () => {
  const res = await get({ mode: 'all', group: 'clothing' });
  expect(res.body.data.items.length).toBeGreaterThan(10);
  expect(res.body.data.items[0].category).toBe('smileys and people');
});

test('category and group together narrow to both', async () => {
  const res = await get({ mode: 'all', category: 'animals-and-nature', group: 'animal-bird' });
  expect(res.status).toBe(200);
  expect(res.body.data.items.length).toBeGreaterThan(5);
  const mismatch = await get({ mode: 'random', category: 'flags', group: 'animal-bird' });
  expect(mismatch.status).toBe(404);
});

test('search: case-insensitive substring of the name', async () => {
  const res = await get({ mode: 'search', q: 'CAT' });
  expect(res.status).toBe(200);
  expectMatchesSchema('art-design/emoji', res.body.data);
  expect(res.body.data.items.length).toBeGreaterThan(3);
  expect(res.body.data.items.every((e: { name: string }) => e.name.includes('cat'))).toBe(true);
  const none = await get({ mode: 'search', q: 'zzzzqqq' });
  expect(none.body.data).toEqual({ total: 0, items: [] });
});

test('similar: names sharing a word longer than 2 letters, the exact name left out', async () => {
  const res = await get({ mode: 'similar', q: 'grinning cat' });
  expect(res.status).toBe(200);
  const names: string[] = res.body.data.items.map((e: { name: string }) => e.name);
  expect(names).not.toContain('grinning cat');
  expect(names).toEqual(expect.arrayContaining(['grinning face', 'black cat', 'grinning cat with smiling eyes']));
  expect(names.every((n) => /\b(grinning|cat)\b/.test(n))).toBe(true);
});

test.each([
  [{ category: 'not-a-category' }, 'emojis with this category do not exist'],
  [{ mode: 'all', group: 'no-such-group' }, 'emojis with this group do not exist'],
])('unknown %j → 404 %s', async (q, message) => {
  const res = await get(q);
  expect(res.status).toBe(404);
  expect(res.body).toMatchObject({ success: false, error: message });
});

test.each(['search', 'similar'])('mode=%s without q → 400 Missing required parameter: q', async (mode) => {
  const res = await get({ mode });
  expect(res.status).toBe(400);
  expect(res.body.error).toBe('Missing required parameter: q');
});

test('an unknown mode → 400 listing the modes', async () => {
  const res = await get({ mode: 'shuffle' });
  expect(res.status).toBe(400);
  expect(res.body.error).toBe('Invalid value for mode: must be one of random, all, categories, groups, search, similar');
});
