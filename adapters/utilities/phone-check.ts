// Phone number validation and formatting with libphonenumber-js's full metadata, answered in numverify's
// field names. A number that parses but is not valid is an answer (valid:false), not an error.
import { parsePhoneNumberFromString, type NumberType } from 'libphonenumber-js/max';
import { invalidParam, regionName } from '../../engine/adapter.js';
import type { Adapter } from './_catalog.js';

/** numverify's line types are lower-case words; libphonenumber says FIXED_LINE where they say landline. */
function lineType(t: NumberType | undefined): string | null {
  return t ? t.toLowerCase().replace('fixed_line', 'landline') : null;
}

function countryName(code: string | undefined): string | null {
  return code ? (regionName(code) ?? null) : null;
}

const phoneCheck: Adapter<'utilities/phone-check'> = async (params) => {
  const raw = params.phone.trim();
  // The catalog pattern already refuses letters; these are shapes no dialled number has.
  if (/\+/.test(raw.slice(1)) || !/\d/.test(raw)) {
    throw invalidParam('phone', 'must be a phone number: digits with an optional leading + (spaces and -.() allowed)');
  }
  const digits = raw.replace(/\D/g, '');
  // International form only: a leading + or 00 is the international prefix; bare digits start with the
  // country code, as numverify reads them.
  const international = raw.startsWith('+') ? digits : digits.replace(/^00/, '');
  if (international.length < 2 || international.length > 17) {
    throw invalidParam('phone', 'must have between 2 and 17 digits after the international prefix');
  }
  const parsed = parsePhoneNumberFromString(`+${international}`);
  if (!parsed) {
    return {
      valid: false,
      possible: false,
      number: international,
      local_format: null,
      international_format: null,
      country_prefix: null,
      country_code: null,
      country_name: null,
      location: null,
      carrier: null,
      line_type: null,
      formats: null,
    };
  }
  const country = parsed.country ?? null;
  return {
    valid: parsed.isValid(),
    possible: parsed.isPossible(),
    number: parsed.number.slice(1),
    local_format: parsed.nationalNumber,
    international_format: parsed.number,
    country_prefix: `+${parsed.countryCallingCode}`,
    country_code: country,
    country_name: countryName(country ?? undefined),
    // Needs libphonenumber-geo-carrier, which pins an exact libphonenumber-js: not embedded.
    location: null,
    carrier: null,
    line_type: lineType(parsed.getType()),
    formats: {
      e164: parsed.number,
      international: parsed.formatInternational(),
      national: parsed.formatNational(),
      rfc3966: parsed.getURI(),
    },
  };
};

export default phoneCheck;
