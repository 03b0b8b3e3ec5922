// Bible chapters and verses in 200+ versions from wldeh/bible-api on jsDelivr, and the list of versions.
// Quirks absorbed here: chapters list each verse twice (a known bug of the upstream's data) → deduplicated by verse
// number; pilcrows (¶) are stripped; every value is a string → verse numbers become integers.
// English book slugs are lower case without spaces (`1samuel`); other versions use localised folder
// names, so the caller's book name is only lower-cased and stripped of spaces.
import { missingParam, required } from '../../engine/adapter.js';
import type { Adapter } from './_catalog.js';
import { isRecord, malformed, text } from './_shape.js';

const clean = (v: unknown) => (typeof v === 'string' ? v.replace(/¶/g, '').replace(/\s+/g, ' ').trim() : '');
const verseNo = (v: unknown) => (/^\d+$/.test(String(v)) ? Number(v) : String(v));

const bibleA: Adapter<'books/bible-a'> = async (params, ctx) => {
  const client = ctx.upstream('wldeh-bible');
  if (params.mode === 'versions') {
    const res = await client.request({ path: '/bibles.json' });
    if (!Array.isArray(res.body)) throw malformed();
    const items = res.body.filter((v) => isRecord(v) && typeof v.id === 'string');
    return { items, count: items.length };
  }

  const version = params.version;
  const bookName = params.book?.trim() ?? '';
  if (!bookName) throw missingParam('book'); // only blanks: absent is refused by the catalog's rules
  const book = bookName.toLowerCase().replace(/\s+/g, '');
  const chapter = required(params, 'chapter');
  const base = `/${encodeURIComponent(version)}/books/${encodeURIComponent(book)}/chapters/${chapter}`;
  const where = `${bookName} ${chapter}${params.verse !== undefined ? `:${params.verse}` : ''}`;
  const notFoundMessage = `No ${where} in version ${version} (check the version id and the book name)`;

  if (params.verse !== undefined) {
    const res = await client.request({ path: `${base}/verses/${params.verse}.json`, notFoundMessage });
    if (!isRecord(res.body) || typeof res.body.text !== 'string') throw malformed();
    return { version, book: bookName, chapter, verse: verseNo(res.body.verse ?? params.verse), text: clean(res.body.text) };
  }

  const res = await client.request({ path: `${base}.json`, notFoundMessage });
  if (!isRecord(res.body) || !Array.isArray(res.body.data)) throw malformed();
  const seen = new Map<string, { verse: number | string; text: string }>();
  for (const v of res.body.data) {
    if (!isRecord(v) || v.verse === undefined || seen.has(String(v.verse))) continue;
    seen.set(String(v.verse), { verse: verseNo(v.verse), text: clean(v.text) });
  }
  const items = [...seen.values()].sort((a, b) => Number(a.verse) - Number(b.verse));
  const first = res.body.data.find(isRecord);
  return { version, book: (first && text(first.book)) ?? bookName, chapter, items, count: items.length };
};

export default bibleA;
