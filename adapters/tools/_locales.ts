// Country → faker locale. Locales named `xx_CC` map themselves; language-only locales are listed here.
// Each locale is imported on its first use (`@faker-js/faker/locale/<id>`), not all ~70 at boot: the whole
// set costs about half a second and tens of megabytes that an instance asked only for US addresses never needs.
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import type { Faker } from '@faker-js/faker';

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

const LOCALES = fs
  .readdirSync(path.dirname(createRequire(import.meta.url).resolve('@faker-js/faker/locale/en')))
  .filter((f) => f.endsWith('.js') && f !== 'base.js')
  .map((f) => f.slice(0, -3));
const loaded = new Map<string, Promise<Faker>>();

export function fakerFor(country: string): Promise<Faker> {
  const language = LANGUAGE_LOCALES[country];
  const id = LOCALES.find((l) => l.endsWith(`_${country}`)) ?? (language && LOCALES.includes(language) ? language : 'en');
  let faker = loaded.get(id);
  if (!faker) {
    faker = (import(`@faker-js/faker/locale/${id}`) as Promise<{ faker: Faker }>).then((m) => m.faker);
    loaded.set(id, faker);
  }
  return faker;
}
