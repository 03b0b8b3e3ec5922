// The problems found in the catalog's files, gathered so a maintainer sees every one of them in one run,
// each on one line: `file:line:column endpoint <name>, field <path>: <what is wrong>`.
import type { PathStep, YamlSource } from './yaml-source.js';

export interface ProblemPlace {
  /** Point at the key of `steps` rather than its value (an unknown field, an unknown param named as a key). */
  key?: boolean;
  /** The field the message names, when it is not `steps` (the map a field is missing from). */
  field?: readonly PathStep[];
}

export class CatalogError extends Error {
  constructor(readonly problems: string[]) {
    super(problems.length === 1 ? problems[0] : `${problems.length} problems in the catalog:\n${problems.join('\n')}`);
  }
}

/** `endpoint <name>, field <path>` for a path into a category file (its endpoint told by name). */
function label(source: YamlSource, field: readonly PathStep[]): string {
  let rest = field;
  let endpoint = '';
  if (field[0] === 'endpoints' && field.length >= 2) {
    const ep = (source.data as { endpoints?: Array<{ name?: unknown }> } | undefined)?.endpoints?.[Number(field[1])];
    endpoint = `endpoint ${typeof ep?.name === 'string' ? ep.name : `#${String(field[1])}`}`;
    rest = field.slice(2);
  }
  return [endpoint, rest.length ? `field ${rest.join('.')}` : ''].filter(Boolean).join(', ');
}

export class Problems {
  private readonly found: Array<{ file: string; line: number; col: number; text: string }> = [];

  add(source: YamlSource, steps: readonly PathStep[], message: string, place: ProblemPlace = {}): void {
    const at = source.at(steps, place.key);
    const [, line, col] = /:(\d+):(\d+)$/.exec(at) ?? [];
    const who = label(source, place.field ?? steps);
    this.found.push({ file: source.shown, line: Number(line), col: Number(col), text: `${at} ${who ? `${who}: ` : ''}${message}` });
  }

  /** A problem with a line of its own (a syntax error, already placed), or with no place in a file. */
  addLine(text: string, file = '', line = 0, col = 0): void {
    this.found.push({ file, line, col, text });
  }

  /** Each file's problems in the order of its lines (the schema's and the cross-checks' found apart). */
  get lines(): string[] {
    const files = [...new Set(this.found.map((p) => p.file))];
    return [...this.found]
      .sort((a, b) => files.indexOf(a.file) - files.indexOf(b.file) || a.line - b.line || a.col - b.col)
      .map((p) => p.text);
  }
}
