// A valid sample value for a catalog parameter, so generated tests can fill the other required params.
import type { ParamSpec } from '../../engine/catalog/load.js';

export function sampleValue(p: ParamSpec): string {
  if (p.examples?.length) return String(p.examples[0]);
  if (p.enum?.length) return String(p.enum[0]);
  if (p.default !== undefined) return String(p.default);
  if (p.format === 'url') return p.hosts ? `https://www.${p.hosts[0]}/watch?v=abc` : 'https://example.com/page';
  if (p.format === 'domain') return 'example.com';
  if (p.format === 'ip') return '8.8.8.8';
  switch (p.type) {
    case 'integer':
    case 'number':
      return String(p.minimum ?? 1);
    case 'boolean':
      return 'true';
    default:
      if (p.pattern) throw new Error(`param with pattern ${p.pattern} needs examples in the catalog`);
      return 'hello';
  }
}
