// art-design/brand-logos: simple-icons, embedded. random, name (title or slug, ignoring case, spaces,
// `-` and `_`), all (no SVGs).
import { upstreamSuite } from '../../helpers/upstream-suite.js';
import { expectAnswer, expectMatchesSchema } from '../../helpers/schema.js';

// Embedded: no upstream to fake, only the app.
const s = upstreamSuite({ endpoint: 'art-design/brand-logos', upstreams: {} });
const { get } = s;

test('random (the default) answers one logo with its SVG', async () => {
  const res = await get();
  expectAnswer(res, 'embedded', 'art-design/brand-logos');
  expect(res.body.data.svg).toContain(`<title>`);
  const again = await get({ mode: 'random' });
  expect(again.body.metadata.cached).toBe(false);
});

test('name matches a title or slug, ignoring case, spaces, - and _', async () => {
  for (const name of ['GitHub', 'github', 'Git_Hub', 'git-hub', ' git hub ']) {
    const res = await get({ mode: 'name', name });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ title: 'GitHub', slug: 'github', hex: '181717' });
  }
  const res = await get({ name: 'GitHub' });
  expectMatchesSchema('art-design/brand-logos', res.body.data);
  expect(res.body.data.svg).toMatch(/^<svg role="img" viewBox="0 0 24 24"/);
});

test('a title with punctuation is found by its title too', async () => {
  const res = await get({ name: '.NET' });
  expect(res.status).toBe(200);
  expect(res.body.data.slug).toBe('dotnet');
});

test('all: {total, items:[{title, slug, hex}]} without SVGs', async () => {
  const res = await get({ mode: 'all' });
  expect(res.status).toBe(200);
  expectMatchesSchema('art-design/brand-logos', res.body.data);
  expect(res.body.data.total).toBeGreaterThan(2500);
  expect(res.body.data.items).toHaveLength(res.body.data.total);
  expect(res.body.data.items).toContainEqual({ title: 'GitHub', slug: 'github', hex: '181717' });
  expect(JSON.stringify(res.body.data)).not.toContain('<svg');
  // In title order as people read it: the package keeps it so and the adapter does not sort again.
  const titles = res.body.data.items.map((i: { title: string }) => i.title);
  expect(titles).toEqual([...titles].sort((a, b) => a.localeCompare(b)));
});

test('an unknown brand → 404', async () => {
  const res = await get({ mode: 'name', name: 'no such brand zzz' });
  expect(res.status).toBe(404);
  expect(res.body).toMatchObject({ success: false, error: 'No brand logo with this name' });
});

test('mode=name without name → 400; an unknown mode → 400', async () => {
  const missing = await get({ mode: 'name' });
  expect(missing.status).toBe(400);
  expect(missing.body.error).toBe('Missing required parameter: name');
  const bad = await get({ mode: 'shuffle' });
  expect(bad.status).toBe(400);
  expect(bad.body.error).toBe('Invalid value for mode: must be one of random, name, all');
});
