// Accents of one speech language; a language without accents has none (total 0), an unknown one is a 400.
import type { Adapter } from './_catalog.js';
import { accentsOf, languageOrFail } from './_languages.js';

const accentlist: Adapter<'tts/accentlist'> = async (params) => {
  const language = languageOrFail(params.lang);
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
