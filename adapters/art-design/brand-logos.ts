// Brand logos from simple-icons (CC0 data; the brands are trademarks of their owners: see the package's
// DISCLAIMER.md). Modes: random (default), name (case-insensitive title or slug, ignoring spaces, `-`
// and `_`), all (the list without SVGs). Without `mode`, a `name` means mode=name.
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { notFound, reply, required } from '../../engine/adapter.js';
import type { Adapter } from './_catalog.js';

interface Icon {
  title: string;
  slug: string;
  hex: string;
  source: string;
  guidelines?: string;
}
interface Index {
  icons: Icon[];
  byKey: Map<string, Icon>;
}

const key = (s: string) => s.toLowerCase().replace(/[\s_-]+/g, '');

let index: Promise<Index> | undefined;
let iconsDir = '';

/**
 * The package's one module of every icon is 5 MB of source and ~30 MB in memory: instead its metadata list
 * (data/simple-icons.json, the same titles, slugs, colours and sources) is read on first use and indexed
 * once, and each SVG is read from the package's icons/<slug>.svg when it is asked for (the same text).
 */
function loadIndex(): Promise<Index> {
  index ??= (async () => {
    const list = createRequire(import.meta.url).resolve('simple-icons/icons.json'); // the package's data/simple-icons.json
    iconsDir = path.resolve(path.dirname(list), '../icons');
    const icons = (JSON.parse(await fs.promises.readFile(list, 'utf8')) as Icon[])
      // Already in title order (simple-icons' own lint keeps it so): sorting again would keep ICU's
      // collation data resident (~2 MB) for nothing.
      .map(({ title, slug, hex, source, guidelines }) => ({ title, slug, hex, source, ...(guidelines ? { guidelines } : {}) }));
    const byKey = new Map<string, Icon>();
    // Slugs first: a slug is unique, a title may normalise like another icon's.
    for (const i of icons) byKey.set(key(i.slug), i);
    for (const i of icons) if (!byKey.has(key(i.title))) byKey.set(key(i.title), i);
    return { icons, byKey };
  })();
  return index;
}

const logo = async (i: Icon) => ({
  title: i.title,
  slug: i.slug,
  hex: i.hex,
  svg: await fs.promises.readFile(path.join(iconsDir, `${i.slug}.svg`), 'utf8'),
  source: i.source,
  ...(i.guidelines ? { guidelines: i.guidelines } : {}),
});

const brandLogos: Adapter<'art-design/brand-logos'> = async (params) => {
  const { icons, byKey } = await loadIndex();
  const mode = params.mode ?? (params.name !== undefined ? 'name' : 'random');
  if (mode === 'all') {
    return { total: icons.length, items: icons.map((i) => ({ title: i.title, slug: i.slug, hex: i.hex })) };
  }
  if (mode === 'name') {
    const found = byKey.get(key(required(params, 'name')));
    if (!found) throw notFound('No brand logo with this name');
    return await logo(found);
  }
  return reply({ data: await logo(icons[Math.floor(Math.random() * icons.length)]), cacheable: false });
};

export default brandLogos;
