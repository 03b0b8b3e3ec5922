// The Color API, embedded: `mode=id` identifies a colour, `mode=scheme` builds a 5-colour scheme around it.
// Without `mode`, a `scheme` parameter means scheme mode. Unlike the upstream (500 on an unknown mode,
// HTTP 200 with {code:400} on a bad colour), bad values are 400s here.
import { invalidParam } from '../../engine/errors.js';
import type { Adapter } from '../../engine/types.js';
import { cleanHex, describeColor } from './_color.js';
import { SCHEME_NAMES, schemeColors } from './_schemes.js';

const COUNT = 5;

const colorScheme: Adapter = async (params) => {
  const hex = cleanHex(String(params.hex));
  if (!hex) throw invalidParam('hex', 'must be six hex digits such as 0047AB');
  const mode = params.mode ?? (params.scheme !== undefined ? 'scheme' : 'id');
  if (mode === 'id') return describeColor(hex);

  const scheme = String(params.scheme ?? 'monochrome').toLowerCase();
  if (!SCHEME_NAMES.includes(scheme)) throw invalidParam('scheme', `must be one of ${SCHEME_NAMES.join(', ')}`);
  return {
    mode: scheme,
    // A string, as the upstream sends it.
    count: String(COUNT),
    colors: schemeColors(hex, scheme, COUNT).map(describeColor),
    seed: describeColor(hex),
  };
};

export default colorScheme;
