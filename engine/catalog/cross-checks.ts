// What the catalog's JSON schema cannot say: names that must match something elsewhere (an upstream of
// upstreams.yaml, a param of the same endpoint), patterns that must compile, endpoints defined once.
// Run on every file even when its schema check failed, so all of a file's problems come out together:
// hence every value is looked at as unknown, whatever the schema would have promised.
import { didYouMean } from './did-you-mean.js';
import type { PathStep } from './yaml-source.js';

type Report = (steps: PathStep[], message: string, place?: { key?: boolean; field?: PathStep[] }) => void;

const isMap = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const strings = (v: unknown): Array<[number, string]> =>
  Array.isArray(v) ? v.flatMap((s, i): Array<[number, string]> => (typeof s === 'string' ? [[i, s]] : [])) : [];

/** Each param a rule names, with where it names it inside the rule (the key of a condition, an item of a list). */
function ruleNames(rule: Record<string, unknown>): Array<{ name: string; steps: PathStep[]; key: boolean }> {
  const out: Array<{ name: string; steps: PathStep[]; key: boolean }> = [];
  for (const list of ['anyOf', 'exclusive', 'given', 'require', 'forbid']) {
    for (const [i, name] of strings(rule[list])) out.push({ name, steps: [list, i], key: false });
  }
  for (const map of ['when', 'unless', 'match']) {
    const v = rule[map];
    if (isMap(v)) for (const name of Object.keys(v)) out.push({ name, steps: [map, name], key: true });
  }
  return out;
}

function checkParams(params: Record<string, unknown>, at: (...s: PathStep[]) => PathStep[], report: Report): void {
  const names = Object.keys(params);
  for (const [name, p] of Object.entries(params)) {
    if (!isMap(p)) continue;
    if (isMap(p.requiredWhen)) {
      for (const other of Object.keys(p.requiredWhen)) {
        if (!(other in params))
          report(at('params', name, 'requiredWhen', other), `unknown param "${other}"${didYouMean(other, names)}`, {
            key: true,
            field: at('params', name, 'requiredWhen'),
          });
      }
    }
    if (typeof p.pattern === 'string') {
      // With the u flag, as the request checks compile it (ajv's unicodeRegExp).
      try {
        new RegExp(p.pattern, 'u');
      } catch (err) {
        report(at('params', name, 'pattern'), `not a valid regular expression: ${(err as Error).message}`);
      }
    }
  }
}

/** Checks one category file's endpoints; `upstreams` holds the ids of upstreams.yaml. */
export function crossCheck(endpoints: unknown[], upstreams: ReadonlySet<string>, report: Report): void {
  const unknownUpstream = (id: string) => `unknown upstream "${id}": not in upstreams.yaml${didYouMean(id, [...upstreams, 'embedded'])}`;
  for (const [i, ep] of endpoints.entries()) {
    if (!isMap(ep)) continue;
    const at = (...s: PathStep[]) => ['endpoints', i, ...s];
    if (typeof ep.upstream === 'string' && ep.upstream !== 'embedded' && !upstreams.has(ep.upstream))
      report(at('upstream'), unknownUpstream(ep.upstream));
    if (Array.isArray(ep.fallback)) {
      for (const [j, f] of ep.fallback.entries()) {
        if (isMap(f) && typeof f.upstream === 'string' && !upstreams.has(f.upstream))
          report(at('fallback', j, 'upstream'), unknownUpstream(f.upstream));
      }
    }
    for (const [j, id] of strings(ep.uses)) if (!upstreams.has(id)) report(at('uses', j), unknownUpstream(id));
    const params = isMap(ep.params) ? ep.params : {};
    checkParams(params, at, report);
    if (Array.isArray(ep.rules)) {
      for (const [k, rule] of ep.rules.entries()) {
        if (!isMap(rule)) continue;
        for (const { name, steps, key } of ruleNames(rule)) {
          if (!(name in params))
            report(at('rules', k, ...steps), `unknown param "${name}"${didYouMean(name, Object.keys(params))}`, {
              key,
              field: at('rules', k),
            });
        }
      }
    }
  }
}
