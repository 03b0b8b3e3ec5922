// Reads a natural-language Bible reference locally (bible-passage-reference-parser), so that a bad one
// is a 400 here and never one of the upstream 404s that get this server banned. Books, chapters and
// verses are checked against the parser's versification; the answer is a canonical reference in full
// English book names ("John 3:16-18", "Romans 12:1-2,12:5-7", "Psalms 23").
import { bcv_parser } from 'bible-passage-reference-parser/esm/bcv_parser.js';
import * as en from 'bible-passage-reference-parser/esm/lang/en.js';
import { invalidParam } from '../../engine/adapter.js';
import { BOOK_NAMES } from './_bible-b-books.js';

interface Point {
  b: string;
  c: number;
  v?: number;
}
interface Leaf {
  start: Point;
  end: Point;
  valid: { valid: boolean; messages: Record<string, number> };
}
interface Entity {
  entities?: Entity[];
  valid?: Leaf['valid'];
  start?: Point;
  end?: Point;
  indices?: [number, number];
  translations?: unknown[];
}

// The package's declarations import './types' without an extension, which NodeNext does not resolve, so
// translation_info() and parse() come out untyped: their answers are typed here (parse() returns the parser).
const parser = new bcv_parser(en);
parser.set_options({ invalid_passage_strategy: 'include', invalid_sequence_strategy: 'include', book_alone_strategy: 'ignore' });
const chapters = (parser.translation_info('default') as { chapters: Record<string, number[]> }).chapters;

const hint = 'a Bible reference such as John 3:16, Romans 12:1-2 or Psalm 23';

function leaves(nodes: Entity[]): Leaf[] {
  return nodes.flatMap((n) => (n.valid && n.start && n.end ? [n as Leaf] : leaves(n.entities ?? [])));
}

function why(leaf: Leaf): string {
  const m = leaf.valid.messages;
  const name = BOOK_NAMES[leaf.start.b] ?? leaf.start.b;
  if (m.start_chapter_not_exist || m.end_chapter_not_exist) return `${name} has ${chapters[leaf.start.b]?.length ?? '?'} chapters`;
  if (m.start_verse_not_exist || m.end_verse_not_exist) {
    const c = m.start_verse_not_exist ? leaf.start.c : leaf.end.c;
    return `${name} ${c} has ${chapters[leaf.start.b]?.[c - 1] ?? '?'} verses`;
  }
  if (m.start_chapter_is_zero || m.start_verse_is_zero) return 'chapters and verses start at 1';
  return `must be ${hint}`;
}

function format(leaf: Leaf, alone: boolean): string {
  const { start: s, end: e } = leaf;
  const last = chapters[s.b]?.[e.c - 1];
  const wholeChapter = s.c === e.c && (s.v ?? 1) === 1 && (e.v === undefined || e.v === last);
  if (alone && wholeChapter) return String(s.c);
  if (s.c === e.c) return s.v === e.v ? `${s.c}:${s.v}` : `${s.c}:${s.v ?? 1}-${e.v ?? last}`;
  return `${s.c}:${s.v ?? 1}-${e.c}:${e.v ?? last}`;
}

export interface ParsedReference {
  /** Canonical form sent upstream. */
  reference: string;
  /** A translation named inside the reference ("John 3:16 KJV"), lower case. */
  translation?: string;
}

export function parseReference(ref: string): ParsedReference {
  const top = (parser.parse(ref) as bcv_parser).parsed_entities() as Entity[];
  const all = leaves(top);
  if (!all.length) throw invalidParam('ref', `must be ${hint}`);
  const bad = all.find((l) => !l.valid.valid);
  if (bad) throw invalidParam('ref', why(bad));
  // Text the parser skipped ("xyz 3:16 John 1:1") means it guessed: refuse rather than send a guess.
  let rest = ref;
  for (const t of top)
    if (t.indices) rest = rest.slice(0, t.indices[0]) + ' '.repeat(t.indices[1] - t.indices[0]) + rest.slice(t.indices[1]);
  if (/[\p{L}\p{N}]/u.test(rest)) throw invalidParam('ref', `must be only ${hint}`);
  const book = all[0].start.b;
  if (all.some((l) => l.start.b !== book || l.end.b !== book)) throw invalidParam('ref', 'must stay within one book');
  const name = BOOK_NAMES[book];
  if (!name) throw invalidParam('ref', `must be ${hint}`);
  const named = top.flatMap((t) => t.translations ?? []).find((x): x is string => typeof x === 'string' && x !== '');
  return {
    reference: `${name} ${all.map((l) => format(l, all.length === 1)).join(',')}`,
    ...(named ? { translation: named.toLowerCase() } : {}),
  };
}
