// The contract's changes between two OpenAPI documents, by api-smart-diff (a diff nobody here wrote, which
// classifies each change as breaking, non-breaking or an annotation), and the rule CI holds them to: a
// breaking change needs a higher major version than the released contract's.
import { apiCompare } from 'api-smart-diff';

export interface Change {
  kind: 'breaking' | 'added' | 'changed';
  /** Where, as a JSON pointer into the document after the change (before it, for a removal). */
  at: string;
  description: string;
}

export interface Comparison {
  changes: Change[];
  breaking: Change[];
  released: string;
  current: string;
  /** False when there is a breaking change and the major version was not raised. */
  allowed: boolean;
}

const major = (version: string) => Number(version.split('.')[0]);

/**
 * A field newly required in a request body breaks every caller that leaves it out, but api-smart-diff
 * (1.0.6) reads an added `required` entry as non-breaking wherever it is: this reads it again.
 */
const requiredInRequest = (path: Array<string | number>, action: string) =>
  action === 'add' && path.includes('requestBody') && path[path.length - 2] === 'required';

export function compareContracts(released: { info: { version: string } }, current: { info: { version: string } }): Comparison {
  // As JSON: a built document shares objects between its places, which the diff's allOf merging trips over.
  const json = (doc: object) => JSON.parse(JSON.stringify(doc)) as object;
  const { diffs } = apiCompare(json(released), json(current));
  const changes: Change[] = [];
  for (const d of diffs) {
    if (d.type === 'annotation') continue; // descriptions, examples, the version itself
    const path = d.path;
    const at = `/${path.map((p) => String(p).replace(/~/g, '~0').replace(/\//g, '~1')).join('/')}`;
    const kind =
      d.type === 'breaking' || requiredInRequest(path, d.action)
        ? 'breaking'
        : d.action === 'add' && path[0] === 'paths' && path.length <= 3
          ? 'added'
          : 'changed';
    changes.push({ kind, at, description: d.description ?? `${d.action} ${at}` });
  }
  const breaking = changes.filter((c) => c.kind === 'breaking');
  return {
    changes,
    breaking,
    released: released.info.version,
    current: current.info.version,
    allowed: breaking.length === 0 || major(current.info.version) > major(released.info.version),
  };
}
