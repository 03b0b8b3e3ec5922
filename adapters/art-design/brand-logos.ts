// Brand logos from simple-icons (CC0 data; the brands are trademarks of their owners: see the package's
// DISCLAIMER.md). Modes: random (default), name (case-insensitive title or slug, ignoring spaces, `-`
// and `_`), all (the list without SVGs). Without `mode`, a `name` means mode=name.
import { notFound, reply, type Adapter } from '../../engine/adapter.js';

interface Icon {
  title: string;
  slug: string;
  hex: string;
  svg: string;
  source: string;
  guidelines?: string;
}
interface Index {
  icons: Icon[];
  byKey: Map<string, Icon>;
}

const key = (s: string) => s.toLowerCase().replace(/[\s_-]+/g, '');

let index: Promise<Index> | undefined;

/** The package is one 5 MB module of every icon: imported on first use, indexed once. */
function loadIndex(): Promise<Index> {
  index ??= import('simple-icons').then((mod) => {
    const icons = (Object.values(mod) as unknown[])
      .filter((v): v is Icon => typeof v === 'object' && v !== null && 'slug' in v && 'path' in v)
      .sort((a, b) => a.title.localeCompare(b.title));
    const byKey = new Map<string, Icon>();
    // Slugs first: a slug is unique, a title may normalise like another icon's.
    for (const i of icons) byKey.set(key(i.slug), i);
    for (const i of icons) if (!byKey.has(key(i.title))) byKey.set(key(i.title), i);
    return { icons, byKey };
  });
  return index;
}

const logo = (i: Icon) => ({
  title: i.title,
  slug: i.slug,
  hex: i.hex,
  svg: i.svg,
  source: i.source,
  ...(i.guidelines ? { guidelines: i.guidelines } : {}),
});

const brandLogos: Adapter = async (params) => {
  const { icons, byKey } = await loadIndex();
  const mode = params.mode ?? (params.name !== undefined ? 'name' : 'random');
  if (mode === 'all') {
    return { total: icons.length, items: icons.map((i) => ({ title: i.title, slug: i.slug, hex: i.hex })) };
  }
  if (mode === 'name') {
    const found = byKey.get(key(String(params.name)));
    if (!found) throw notFound('No brand logo with this name');
    return logo(found);
  }
  return reply({ data: logo(icons[Math.floor(Math.random() * icons.length)]), cacheable: false });
};

export default brandLogos;
