// Poems of PoetryDB: every title (no parameters), every author (mode=authors), a random poem, or poems
// by author and/or title (partial match). Quirks absorbed here: errors come inside HTTP 200 as
// {"status": 404 | "405", "reason": …} (the status may be a string); `linecount` is a string; `,;:`
// separate PoetryDB's own query syntax, so the catalog refuses them in values.
import { badInput, notFound, reply } from '../../engine/adapter.js';
import type { Adapter } from './_catalog.js';
import { isRecord, malformed, text, type Rec } from './_shape.js';

const poem = (p: Rec) => ({
  title: text(p.title),
  author: text(p.author),
  lines: Array.isArray(p.lines) ? p.lines.map(String) : [],
  linecount: Number.isFinite(Number(p.linecount)) ? Number(p.linecount) : Array.isArray(p.lines) ? p.lines.length : 0,
});

const poetry: Adapter<'books/poetry'> = async (params, ctx) => {
  const author = params.author?.trim() ?? '';
  const title = params.title?.trim() ?? '';
  const mode = params.mode;

  const enc = encodeURIComponent;
  const path =
    mode === 'authors'
      ? '/author'
      : mode === 'random'
        ? '/random'
        : author && title
          ? `/author,title/${enc(author)};${enc(title)}`
          : author
            ? `/author/${enc(author)}`
            : title
              ? `/title/${enc(title)}`
              : '/title';
  const res = await ctx.upstream('poetrydb').request({ path, notFoundMessage: 'No poem matches' });
  const body = res.body;

  if (isRecord(body) && body.status !== undefined) {
    if (String(body.status) === '404') throw notFound(author || title ? 'No poem matches this author or title' : 'Not found upstream');
    throw badInput('The upstream service rejected the request');
  }
  if (mode === 'authors' || (!author && !title && !mode)) {
    const key = mode === 'authors' ? 'authors' : 'titles';
    if (!isRecord(body) || !Array.isArray(body[key])) throw malformed();
    const items = (body[key] as unknown[]).filter((x): x is string => typeof x === 'string');
    return { kind: key, items, count: items.length };
  }
  if (!Array.isArray(body)) throw malformed();
  const items = body.filter(isRecord).map(poem);
  const data = { kind: 'poems', items, count: items.length };
  return mode === 'random' ? reply({ data, cacheable: false }) : data;
};

export default poetry;
