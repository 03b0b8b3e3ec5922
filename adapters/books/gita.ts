// Verses of the Bhagavad Gita with translation and commentary, from gita-api.vercel.app, by chapter and
// verse or by global serial number. Numbers are checked locally against the verse-count table, so no
// call is made for a verse that does not exist. Quirks absorbed here: errors come inside HTTP 200 as
// {"error", "message"} ("Language not implemented" → 404, "Invalid verse no" → 400); Odia answers
// numbers as strings; combined verses (1.4-6, 1.16-18, 18.51-53) answer lists; `purport` may be the
// text of a Python list.
import { badInput, invalidParam, notFound, required } from '../../engine/adapter.js';
import type { Adapter } from './_catalog.js';
import { GITA_VERSES, gitaSerial } from './_gita-verses.js';
import { isRecord, malformed } from './_shape.js';

function int(v: unknown): number | null {
  const n = typeof v === 'number' ? v : typeof v === 'string' && /^\s*\d+\s*$/.test(v) ? Number(v) : NaN;
  return Number.isInteger(n) ? n : null;
}

/** 47, "47", "4-6" or [4, 5, 6] → 47 or [4, 5, 6]. */
function verseNo(v: unknown, fallback: number): number | number[] {
  if (Array.isArray(v)) return v.map(int).filter((n): n is number => n !== null);
  const range = typeof v === 'string' ? /^\s*(\d+)\s*-\s*(\d+)\s*$/.exec(v) : null;
  if (range && Number(range[2]) >= Number(range[1]) && Number(range[2]) - Number(range[1]) < 10) {
    return Array.from({ length: Number(range[2]) - Number(range[1]) + 1 }, (_, i) => Number(range[1]) + i);
  }
  return int(v) ?? fallback;
}

/** A list, or the repr of a Python list ("['a', 'b']"), or a plain text → a list of strings. */
function paragraphs(v: unknown): string[] {
  if (Array.isArray(v)) return v.filter((x): x is string => typeof x === 'string');
  if (typeof v !== 'string' || !v.trim()) return [];
  const t = v.trim();
  if (t.startsWith('[') && t.endsWith(']')) {
    const parts = [...t.matchAll(/'((?:[^'\\]|\\.)*)'|"((?:[^"\\]|\\.)*)"/g)].map((m) => (m[1] ?? m[2]).replace(/\\(['"\\])/g, '$1'));
    if (parts.length) return parts;
  }
  return [t];
}

const textOrList = (v: unknown) => (Array.isArray(v) ? v.filter((x) => typeof x === 'string') : typeof v === 'string' ? v : null);

const gita: Adapter<'books/gita'> = async (params, ctx) => {
  const language = params.language;
  const mode = params.mode ?? (params.serial !== undefined ? 'serial' : 'verse');
  let chapter: number;
  let verse: number;
  let path: string;
  if (mode === 'serial') {
    const serial = required(params, 'serial');
    ({ chapter, verse } = gitaSerial(serial));
    path = `/${language}/verse/${serial}`;
  } else {
    chapter = required(params, 'chapter');
    verse = required(params, 'verse');
    const count = GITA_VERSES[chapter - 1];
    if (verse > count) throw invalidParam('verse', `chapter ${chapter} has ${count} verses`);
    path = `/${language}/verse/${chapter}/${verse}`;
  }

  const res = await ctx.upstream('gita').request({ path, notFoundMessage: `No verse ${chapter}.${verse} in language ${language}` });
  const b = res.body;
  if (!isRecord(b)) throw malformed();
  if (b.error !== undefined) {
    const said = `${String(b.error)} ${String(b.message ?? '')}`;
    if (/not implemented/i.test(said)) throw notFound(`Language ${language} is not available from the upstream`);
    if (/invalid|only/i.test(said)) throw badInput('The upstream service rejected the chapter or verse number');
    throw badInput('The upstream service rejected the request');
  }
  if (b.verse === undefined && b.translation === undefined) throw malformed();
  return {
    chapter_no: int(b.chapter_no) ?? chapter,
    verse_no: verseNo(b.verse_no, verse),
    language: typeof b.language === 'string' ? b.language : language,
    verse: textOrList(b.verse),
    translation: textOrList(b.translation),
    purport: paragraphs(b.purport),
    audio_link: typeof b.audio_link === 'string' ? b.audio_link : null,
  };
};

export default gita;
