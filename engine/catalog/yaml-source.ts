// A catalog file read with the place of every value, so that each problem found in it can be told as
// file:line:column, the form editors and terminals turn into a link.
import fs from 'node:fs';
import path from 'node:path';
import { LineCounter, isMap, isPair, isScalar, isSeq, parseDocument, type Document } from 'yaml';

/** A step into the data: a map's key or a list's index (ajv's JSON pointers give both as text). */
export type PathStep = string | number;

export interface YamlSource {
  /** The file as shown in messages: relative to the working folder when it lies below it. */
  shown: string;
  /** The file's data; undefined when it is not valid YAML. */
  data: unknown;
  /** Syntax errors, one line each with its position. */
  syntaxErrors: string[];
  /**
   * `file:line:column` of the value at `steps`, or of its key when `key` is set (an unknown field is
   * pointed at by its name). A step that does not exist stops the walk at the nearest node that does:
   * a missing field is told where its map starts.
   */
  at(steps: readonly PathStep[], key?: boolean): string;
}

export function shownPath(file: string): string {
  const relative = path.relative(process.cwd(), file);
  return relative && !relative.startsWith('..') && !path.isAbsolute(relative) ? relative : file;
}

/** The offset where the node at `steps` (or its key) starts, or the nearest existing parent's. */
function offsetOf(doc: Document, steps: readonly PathStep[], key: boolean): number {
  let node: unknown = doc.contents;
  let offset = doc.contents?.range?.[0] ?? 0;
  for (const [i, step] of steps.entries()) {
    const last = i === steps.length - 1;
    if (isMap(node)) {
      const pair = node.items.find((p) => isPair(p) && String(isScalar(p.key) ? p.key.value : p.key) === String(step));
      if (!pair) break;
      const keyStart = (pair.key as { range?: [number, number, number] } | null)?.range?.[0];
      const value = pair.value as { range?: [number, number, number] } | null;
      // `name:` with nothing after it has no value node: its key is the place to show.
      const valueStart = value?.range?.[0];
      offset = (last && key ? keyStart : (valueStart ?? keyStart)) ?? offset;
      node = pair.value;
    } else if (isSeq(node)) {
      const item = node.items[Number(step)] as { range?: [number, number, number] } | null | undefined;
      if (!item?.range) break;
      offset = item.range[0];
      node = item;
    } else break;
  }
  return offset;
}

export function readYamlSource(file: string): YamlSource {
  const shown = shownPath(file);
  const text = fs.readFileSync(file, 'utf8');
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { lineCounter });
  const place = (offset: number) => {
    const { line, col } = lineCounter.linePos(offset);
    return `${shown}:${line}:${col}`;
  };
  // The parser's own message ends with "at line L, column C:" and a snippet: the position leads instead.
  const syntaxErrors = doc.errors.map(
    (e) => `${place(e.pos[0])} not valid YAML: ${e.message.split('\n')[0].replace(/ at line \d+, column \d+:?$/, '')}`,
  );
  return {
    shown,
    data: syntaxErrors.length ? undefined : doc.toJS(),
    syntaxErrors,
    at: (steps, key = false) => place(offsetOf(doc, steps, key)),
  };
}
