// Reads the customer's spec (docs/spec.md) into data: the endpoint tables of §4.2–4.14 and the bounds
// table of §8.4. scripts/check-catalog compares the result with the catalog, so the spec stays the
// single source of truth for every endpoint, method, parameter, required flag, closed list, bound and
// default. Parameter notes are prose; interpretNote reads the few shapes the spec uses for values.

export interface SpecParam {
  name: string;
  required: boolean;
  /** The words in parentheses after the parameter, as written. */
  note: string;
  /** A list of values the spec closes ("BUY or SELL", "one of N, 10M, …"). */
  enum?: string[];
  /** Values named as examples only ("for example …", "… and others"). */
  examples?: string[];
  default?: string;
  minimum?: number;
  maximum?: number;
  /** A true/false flag. */
  flag?: boolean;
  /** "required with action=search" → { action: 'search' } */
  requiredWhen?: Record<string, string>;
}

export interface SpecEndpoint {
  category: string;
  name: string;
  method: string;
  /** Every parameter but apikey, which every endpoint takes. */
  params: SpecParam[];
}

export interface SpecBound {
  /** `category/name` */
  endpoint: string;
  param: string;
  text: string;
}

export interface ParsedSpec {
  endpoints: SpecEndpoint[];
  bounds: SpecBound[];
  /** Sentences the parser could not place: a change of the spec's layout shows up here, not as silence. */
  problems: string[];
}

type Interpretation = Omit<SpecParam, 'name' | 'required' | 'note'>;

// Words the spec writes as "a or b" that describe a free-text value instead of listing its values.
const PROSE_NOTES = new Set(['message or question', 'prompt or message', 'full or partial']);

// A value of a closed list: one token, possibly a template such as house/{house}.
const VALUE = /^[A-Za-z0-9_{}/.-]+$/;

/** Splits at `sep` outside parentheses. */
function splitTop(text: string, sep: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let cur = '';
  for (const ch of text) {
    if (ch === '(') depth++;
    if (ch === ')') depth = Math.max(0, depth - 1);
    if (ch === sep && depth === 0) {
      out.push(cur);
      cur = '';
    } else cur += ch;
  }
  out.push(cur);
  return out.map((s) => s.trim()).filter(Boolean);
}

function stripParens(text: string): string {
  let prev;
  do {
    prev = text;
    text = text.replace(/\s*\([^()]*\)/g, '');
  } while (text !== prev);
  return text;
}

function splitList(text: string): string[] {
  return text
    .split(/\s*,\s*(?:or\s+)?|\s+or\s+/)
    .map((s) => s.trim())
    .filter(Boolean);
}

/** Reads values, bounds, defaults, flags and conditions out of a parameter's note. */
export function interpretNote(note: string): Interpretation {
  const out: Interpretation = {};
  const text = stripParens(note.trim());
  if (!text) return out;

  const when = /required (?:with|for|when) (\w+)=(\w+)/.exec(text);
  if (when) out.requiredWhen = { [when[1]]: when[2] };

  if (/^flag\b/.test(text) || /\btrue or false\b/.test(text) || /^true for\b/.test(text)) {
    out.flag = true;
    return out;
  }

  const range = /(-?\d+) to (-?\d+)/.exec(text);
  if (range) {
    out.minimum = Number(range[1]);
    out.maximum = Number(range[2]);
  }

  // "default en", "(model id, default auto)"; never "default: requester's IP", which is no value.
  const def = /(?:^|[\s,])default ([^\s,;:)]+)/.exec(text);
  if (def) out.default = def[1];
  // "quotes default, characters, episodes": the value first, then the word.
  const defAfter = /(?:^|,\s*)([A-Za-z0-9_-]+) default(?=,|;|$)/.exec(text);
  if (defAfter) out.default = defAfter[1];

  if (/\bfor example\b|\band others\b|\band \d+\+? more\b/.test(text)) {
    const from = text.includes('for example') ? text.slice(text.indexOf('for example') + 'for example'.length) : text;
    out.examples = splitList(from.split(';')[0]).filter((v) => !/^and (others|\d+\+? more)$/.test(v));
    return out;
  }

  const values = closedList(text);
  if (values) out.enum = values;
  return out;
}

/** The values of a closed list, or undefined when the note is a description. */
function closedList(text: string): string[] | undefined {
  if (PROSE_NOTES.has(text) || /comma-separated/.test(text)) return undefined;
  let t = text.replace(/^one of /, '');
  let marked = false;
  if (t.includes(';')) {
    t = t.slice(0, t.indexOf(';'));
    marked = true; // "random; omit for list": a value, then what omitting it means
  }
  const colon = t.indexOf(': ');
  if (colon >= 0) t = t.slice(colon + 2); // "search only: 1 = images, 2 = GIFs"
  t = t.replace(/(?:^|,\s*)default [^\s,;:)]+/, '').replace(/ default(?=,|$)/, '');
  const items = splitList(t).map((item) => {
    const m = /^(\S+)\s+(?:=\s|lists\s)/.exec(item); // "endpoints = list categories", "versions lists all"
    if (m) {
      marked = true;
      return m[1];
    }
    return item.replace(/ for .*$/, ''); // "me for quota check"
  });
  // A trailing description after the values: "ip or id, duplicate avoidance".
  while (items.length > 2 && /\s/.test(items[items.length - 1]) && VALUE.test(items[0])) items.pop();
  if (items.length === 0 || !items.every((v) => VALUE.test(v))) return undefined;
  if (items.length === 1 && !marked) return undefined;
  return items;
}

/** "apikey R; q R (message or question)" → params (apikey left out). */
export function parseParamList(cell: string): SpecParam[] {
  const params: SpecParam[] = [];
  for (const item of splitTop(cell, ';')) {
    const m = /^([A-Za-z_][A-Za-z0-9_]*) ([RO])(?:\s*\((.*)\))?$/s.exec(item);
    if (!m) throw new Error(`cannot read parameter "${item}"`);
    if (m[1] === 'apikey') continue;
    const note = m[3] ?? '';
    params.push({ name: m[1], required: m[2] === 'R', note, ...interpretNote(note) });
  }
  return params;
}

interface Table {
  header: string[];
  rows: string[][];
}

function cells(line: string): string[] {
  return line
    .trim()
    .replace(/^\|/, '')
    .replace(/\|$/, '')
    .split('|')
    .map((c) => c.trim());
}

function tablesOf(lines: string[]): Table[] {
  const tables: Table[] = [];
  for (let i = 0; i < lines.length; i++) {
    if (!lines[i].trim().startsWith('|') || !/^\s*\|[\s|:-]+\|\s*$/.test(lines[i + 1] ?? '')) continue;
    const header = cells(lines[i]);
    const rows: string[][] = [];
    let j = i + 2;
    for (; j < lines.length && lines[j].trim().startsWith('|'); j++) rows.push(cells(lines[j]));
    tables.push({ header, rows });
    i = j - 1;
  }
  return tables;
}

function col(t: Table, name: string): number {
  return t.header.findIndex((h) => h.toLowerCase() === name.toLowerCase());
}

function pathOf(cell: string): { category: string; name: string } | undefined {
  const m = /^\/([a-z0-9-]+)\/([a-z0-9-]+)/.exec(cell.trim());
  return m ? { category: m[1], name: m[2] } : undefined;
}

/** The `##`/`###` sections of the spec, keyed by their number ("4.2", "8"). */
function sections(md: string): Map<string, { title: string; lines: string[] }> {
  const out = new Map<string, { title: string; lines: string[] }>();
  let current: { title: string; lines: string[] } | undefined;
  for (const line of md.split(/\r?\n/)) {
    const h = /^#{2,3} (\d+(?:\.\d+)?)\.? (.*)$/.exec(line);
    if (h) {
      current = { title: h[2].trim(), lines: [] };
      out.set(h[1], current);
    } else current?.lines.push(line);
  }
  return out;
}

export function parseSpec(md: string): ParsedSpec {
  const endpoints: SpecEndpoint[] = [];
  const problems: string[] = [];
  const secs = sections(md);

  for (const [num, sec] of secs) {
    if (!/^4\.\d+$/.test(num) || num === '4.1') continue;
    const category = sec.title.split(/\s+/)[0];
    const text = sec.lines.join('\n');
    const allMethod = /\bAll (GET|POST)\b/.exec(text)?.[1];
    // "All GET; parameters: apikey R; url R (…)." — parameters shared by the section's rows.
    const shared = /parameters: (.+?)\.?\s*$/m.exec(text)?.[1];
    let common: SpecParam[] = [];

    for (const t of tablesOf(sec.lines)) {
      const iParam = col(t, 'Parameter');
      if (iParam >= 0) {
        // The common-parameter table of gen-models: Parameter | Req | Meaning.
        const iReq = col(t, 'Req');
        const iMeaning = col(t, 'Meaning');
        common = t.rows
          .filter((r) => r[iParam] !== 'apikey')
          .map((r) => ({ name: r[iParam], required: r[iReq] === 'R', note: r[iMeaning] ?? '', ...interpretNote(r[iMeaning] ?? '') }));
        continue;
      }
      const iPath = col(t, 'Path');
      if (iPath < 0) continue;
      const iMethod = col(t, 'Method');
      const iParams = col(t, 'Parameters');
      const iExtra = col(t, 'Extra parameters');
      for (const r of t.rows) {
        const where = pathOf(r[iPath]);
        if (!where) {
          problems.push(`§${num}: cannot read path "${r[iPath]}"`);
          continue;
        }
        if (where.category !== category) problems.push(`§${num}: path ${r[iPath]} is outside category ${category}`);
        const method = iMethod >= 0 ? r[iMethod] : allMethod;
        if (!method) problems.push(`§${num}: no method for ${r[iPath]}`);
        let params: SpecParam[];
        try {
          if (iParams >= 0) params = parseParamList(r[iParams]);
          else if (iExtra >= 0) params = [...common.map((p) => ({ ...p })), ...(r[iExtra] === 'none' ? [] : parseParamList(r[iExtra]))];
          else if (shared) params = parseParamList(shared);
          else throw new Error('no parameters column or sentence');
        } catch (err) {
          problems.push(`§${num} ${r[iPath]}: ${(err as Error).message}`);
          params = [];
        }
        endpoints.push({ category: where.category, name: where.name, method: method ?? '', params });
      }
    }
  }

  const bounds: SpecBound[] = [];
  const limits = [...secs].find(([num, s]) => num === '8' && /limits/i.test(s.title))?.[1];
  for (const t of tablesOf(limits?.lines ?? [])) {
    const iEp = col(t, 'Endpoint');
    const iParam = col(t, 'Parameter');
    const iBound = col(t, 'Bound');
    if (iEp < 0 || iParam < 0 || iBound < 0) continue;
    for (const r of t.rows) {
      for (const p of r[iEp].split(',')) {
        const where = pathOf(p);
        if (!where) problems.push(`§8: cannot read endpoint "${p.trim()}"`);
        else bounds.push({ endpoint: `${where.category}/${where.name}`, param: r[iParam], text: r[iBound] });
      }
    }
  }
  if (!limits) problems.push('§8 Limits not found');

  // Fold the bounds table into the parameters it names.
  for (const b of bounds) {
    const ep = endpoints.find((e) => `${e.category}/${e.name}` === b.endpoint);
    const p = ep?.params.find((x) => x.name === b.param);
    if (!p) {
      problems.push(`§8: bound for ${b.endpoint} ${b.param}, which §4 does not list`);
      continue;
    }
    const extra = interpretNote(b.text);
    for (const k of ['enum', 'default', 'minimum', 'maximum'] as const) {
      if (extra[k] === undefined) continue;
      if (p[k] !== undefined && JSON.stringify(p[k]) !== JSON.stringify(extra[k])) {
        problems.push(`§8: ${b.endpoint} ${b.param} ${k} ${JSON.stringify(extra[k])} contradicts §4 ${JSON.stringify(p[k])}`);
      }
      (p as unknown as Record<string, unknown>)[k] = extra[k];
    }
  }
  return { endpoints, bounds, problems };
}
