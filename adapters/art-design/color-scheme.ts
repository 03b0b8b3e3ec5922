// The Color API, embedded: `mode=id` identifies a colour, `mode=scheme` builds a 5-colour scheme around it.
// Without `mode`, a `scheme` parameter means scheme mode. Unlike the upstream (500 on an unknown mode,
// HTTP 200 with {code:400} on a bad colour), bad values are 400s here.
import type { Adapter } from './_catalog.js';
import { cleanHex, describeColor } from './_color.js';
import { schemeColors } from './_schemes.js';

const COUNT = 5;

const colorScheme: Adapter<'art-design/color-scheme'> = async (params) => {
  const hex = cleanHex(params.hex)!; // the catalog's pattern holds six hex digits
  const mode = params.mode ?? (params.scheme !== undefined ? 'scheme' : 'id');
  if (mode === 'id') return describeColor(hex);

  const scheme = params.scheme ?? 'monochrome'; // one of SCHEME_NAMES: the catalog's enum
  return {
    mode: scheme,
    // A string, as the upstream sends it.
    count: String(COUNT),
    colors: schemeColors(hex, scheme, COUNT).map(describeColor),
    seed: describeColor(hex),
  };
};

export default colorScheme;
