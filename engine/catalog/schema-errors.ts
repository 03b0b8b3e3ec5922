// ajv's errors about a catalog file, in plain words: which values an enum allows and the one meant, the
// field that is missing, the unknown field and the known one it resembles, the type expected and the value
// found. Of the branches of a oneOf/anyOf, only the one the value was most likely meant to match speaks.
import type { ErrorObject } from 'ajv';
import { didYouMean } from './did-you-mean.js';
import type { PathStep } from './yaml-source.js';

export interface SchemaProblem {
  /** Where it is: the value's path, or the unknown field's own. */
  steps: PathStep[];
  /** Point at the key rather than the value (an unknown field). */
  key: boolean;
  /** The field named in the message: the value's path, or the map that lacks or has too much. */
  field: PathStep[];
  message: string;
}

const pointerSteps = (pointer: string): string[] =>
  pointer
    .split('/')
    .slice(1)
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));

/** A value as a maintainer wrote it: text quoted, a map or a list by its kind. */
function shown(value: unknown): string {
  if (value === null || value === undefined) return 'nothing';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'object') return 'a map';
  return typeof value === 'string' ? JSON.stringify(value) : String(value);
}

const TYPE_WORDS: Record<string, string> = {
  string: 'text',
  number: 'a number',
  integer: 'a whole number',
  boolean: 'true or false',
  object: 'a map (field: value)',
  array: 'a list',
  null: 'null',
};

const or = (words: string[]) => (words.length < 2 ? words.join('') : `${words.slice(0, -1).join(', ')} or ${words.at(-1)}`);

/** Patterns of schema.ts told by what they ask for. */
const PATTERN_WORDS: Record<string, string> = {
  '^[0-9]+(ms|s|m|h|d)$': 'a duration such as 500ms, 30s, 10m, 6h or 30d',
  '^[a-z0-9][a-z0-9-]*$': 'lowercase letters, digits and dashes',
  '^[a-z0-9-]+$': 'lowercase letters, digits and dashes',
  '^[a-z0-9-]+/[a-z0-9-]+$': '<category>/<name>, the adapter file below adapters/ without its extension',
};

function plainMessage(e: ErrorObject): string {
  const p = e.params as Record<string, unknown>;
  switch (e.keyword) {
    case 'enum': {
      const allowed = (p.allowedValues as unknown[]).map(String);
      const hint = typeof e.data === 'string' ? didYouMean(e.data, allowed) : '';
      return `${shown(e.data)} is not one of ${allowed.join(', ')}${hint}`;
    }
    case 'const':
      return `must be ${JSON.stringify(p.allowedValue)}, not ${shown(e.data)}`;
    case 'type': {
      const types = ([] as string[]).concat(p.type as string | string[]);
      return `must be ${or(types.map((t) => TYPE_WORDS[t] ?? t))}, not ${shown(e.data)}`;
    }
    case 'pattern': {
      const words = PATTERN_WORDS[p.pattern as string];
      return words ? `${shown(e.data)} is not ${words}` : `${shown(e.data)} does not match the pattern ${String(p.pattern)}`;
    }
    case 'minLength':
    case 'maxLength':
      return `must be at ${e.keyword === 'minLength' ? 'least' : 'most'} ${String(p.limit)} character(s) long`;
    case 'minItems':
    case 'maxItems':
      return `must list at ${e.keyword === 'minItems' ? 'least' : 'most'} ${String(p.limit)} item(s)`;
    case 'minProperties':
    case 'maxProperties':
      return `must have at ${e.keyword === 'minProperties' ? 'least' : 'most'} ${String(p.limit)} field(s)`;
    case 'minimum':
    case 'maximum':
    case 'exclusiveMinimum':
    case 'exclusiveMaximum':
      return `must be ${String(p.comparison)} ${String(p.limit)}, not ${shown(e.data)}`;
    case 'uniqueItems':
      return `lists ${shown((e.data as unknown[])[p.j as number])} twice`;
    default:
      return e.message ?? e.keyword;
  }
}

/** One error, not a combinator's, as a problem. */
function problemOf(e: ErrorObject): SchemaProblem {
  const at = pointerSteps(e.instancePath);
  const p = e.params as Record<string, unknown>;
  if (e.keyword === 'required') return { steps: at, key: false, field: at, message: `missing "${String(p.missingProperty)}"` };
  if (e.keyword === 'additionalProperties') {
    const name = String(p.additionalProperty);
    const known = Object.keys((e.parentSchema as { properties?: object } | undefined)?.properties ?? {});
    // "e.g. visa" as a key: an unquoted comma in a flow map ({ description: a, e.g. visa }) split the text.
    const comma = / /.test(name) ? ' (an unquoted comma in a { } map? quote the text)' : didYouMean(name, known);
    return { steps: [...at, name], key: true, field: at, message: `unknown field "${name}"${comma}` };
  }
  return { steps: at, key: false, field: at, message: plainMessage(e) };
}

const branchOf = (e: ErrorObject, combinator: ErrorObject) => Number(e.schemaPath.slice(combinator.schemaPath.length + 1).split('/')[0]);

/** The words for a oneOf/anyOf that failed, from the errors of its branches. */
function combinatorProblems(c: ErrorObject, inside: ErrorObject[]): SchemaProblem[] {
  const at = pointerSteps(c.instancePath);
  const branches = (c.schema as unknown[]).map((_, i) => inside.filter((e) => branchOf(e, c) === i));
  if (c.keyword === 'oneOf' && (c.params as { passingSchemas?: number[] | null }).passingSchemas) {
    // Matched several: for a list of `required` alternatives that means too many of them were given.
    const names = (c.schema as Array<{ required?: string[] }>).map((b) => b.required?.[0]);
    const message = names.every(Boolean) ? `give only one of ${names.join(', ')}` : 'matches more than one of its forms';
    return [{ steps: at, key: false, field: at, message }];
  }
  // A branch whose very kind the value is not (a list where a map is wanted) was not the one meant.
  const wrongKind = (errors: ErrorObject[]) =>
    errors.some((e) => e.instancePath === c.instancePath && ['type', 'const'].includes(e.keyword));
  const meant = branches.filter((errors) => !wrongKind(errors));
  // A branch through a $ref reports under the referenced schema's path: its errors are told on their own.
  if (meant.some((errors) => !errors.length)) return [];
  if (!meant.length) {
    const kinds = branches.flatMap((errors) =>
      errors
        .filter((e) => e.instancePath === c.instancePath)
        .map((e) =>
          e.keyword === 'const'
            ? JSON.stringify((e.params as { allowedValue: unknown }).allowedValue)
            : ([] as string[])
                .concat((e.params as { type: string | string[] }).type)
                .map((t) => TYPE_WORDS[t] ?? t)
                .join(' or '),
        ),
    );
    return [{ steps: at, key: false, field: at, message: `must be ${or([...new Set(kinds)])}, not ${shown(c.data)}` }];
  }
  // Every branch lacking one field: the value lacks the one of them it must have.
  const lone = meant.map((errors) => (errors.length === 1 && errors[0].keyword === 'required' ? errors[0] : undefined));
  if (lone.every((e) => e && e.instancePath === c.instancePath)) {
    const names = lone.map((e) => `"${String((e!.params as { missingProperty: string }).missingProperty)}"`);
    return [{ steps: at, key: false, field: at, message: `missing one of ${names.join(', ')}` }];
  }
  // The branch meant is the one that knows the value's fields; of those, the one with the fewest complaints.
  const unknownFields = (errors: ErrorObject[]) => errors.filter((e) => e.keyword === 'additionalProperties').length;
  const likeliest = meant.reduce((best, errors) =>
    unknownFields(errors) < unknownFields(best) || (unknownFields(errors) === unknownFields(best) && errors.length < best.length)
      ? errors
      : best,
  );
  return explain(likeliest);
}

/** ajv's errors (from a validator compiled with allErrors and verbose) as problems, combinators resolved. */
export function explain(errors: ErrorObject[]): SchemaProblem[] {
  const combinators = errors
    .filter((e) => e.keyword === 'oneOf' || e.keyword === 'anyOf')
    .sort((a, b) => a.schemaPath.length - b.schemaPath.length);
  const handled = new Set<ErrorObject>();
  const out: SchemaProblem[] = [];
  for (const c of combinators) {
    if (handled.has(c)) continue;
    // A schema reached by $ref has one path for every place it checks: the value's path tells them apart.
    const inside = errors.filter(
      (e) =>
        e !== c &&
        e.schemaPath.startsWith(`${c.schemaPath}/`) &&
        (e.instancePath === c.instancePath || e.instancePath.startsWith(`${c.instancePath}/`)),
    );
    for (const e of [c, ...inside]) handled.add(e);
    out.push(...combinatorProblems(c, inside));
  }
  for (const e of errors) if (!handled.has(e)) out.push(problemOf(e));
  // allErrors can tell one thing twice (the same failure reached by two paths of the schema).
  const seen = new Set<string>();
  return out.filter((p) => {
    const id = `${p.steps.join('/')}\0${p.message}`;
    return seen.has(id) ? false : (seen.add(id), true);
  });
}
