// Country → faker locale. Locales named `xx_CC` map themselves; language-only locales are listed here.
import { allFakers, type Faker } from '@faker-js/faker';

const LANGUAGE_LOCALES: Record<string, string> = {
  AR: 'es',
  AZ: 'az',
  BD: 'bn_BD',
  CZ: 'cs_CZ',
  DK: 'da',
  DE: 'de',
  GR: 'el',
  ES: 'es',
  IR: 'fa',
  FI: 'fi',
  FR: 'fr',
  IL: 'he',
  HR: 'hr',
  HU: 'hu',
  AM: 'hy',
  IT: 'it',
  JP: 'ja',
  KR: 'ko',
  LV: 'lv',
  MK: 'mk',
  NL: 'nl',
  NO: 'nb_NO',
  NP: 'ne',
  PL: 'pl',
  RO: 'ro',
  RU: 'ru',
  SK: 'sk',
  SE: 'sv',
  TH: 'th',
  TR: 'tr',
  UA: 'uk',
  PK: 'ur',
  VN: 'vi',
  CN: 'zh_CN',
  TW: 'zh_TW',
  MV: 'dv',
  SA: 'ar',
  AE: 'ar',
  EG: 'ar',
  CO: 'es',
  CL: 'es',
  PE: 'es',
};

export function fakerFor(country: string): Faker {
  const fakers = allFakers as Record<string, Faker>;
  const exact = Object.keys(fakers).find((id) => id.endsWith(`_${country}`));
  return fakers[exact ?? LANGUAGE_LOCALES[country] ?? 'en'] ?? fakers.en;
}
