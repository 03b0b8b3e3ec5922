// Accents of one speech language; a language without accents has none (total 0), an unknown one is a 400.
import type { Adapter } from '../../engine/adapter.js';
import { accentsOf, languageOrFail } from './_languages.js';

const accentlist: Adapter = async (params) => {
  const language = languageOrFail(String(params.lang));
  const accents = accentsOf(language).map(({ tld, region, aliases, name, voice, approximate }) => ({
    tld,
    region,
    aliases: aliases ?? [],
    name,
    voice,
    approximate,
  }));
  return { lang: language.code, total: accents.length, accents };
};

export default accentlist;
