// The one table of Quran editions the quran-json package holds, with their ids at AlQuran Cloud (quran-a)
// and at fawazahmed0/quran-api (quran-b), and whether we may serve them from the package.
//
// Licences (quran-json's README and LICENSE.txt, and each source's terms): the package is CC BY-SA 4.0 as
// a compilation, but each text keeps its own owner's terms.
//  - The Arabic Uthmani text (from QuranEnc / King Fahd Complex) is the Quran itself, distributed freely
//    for verbatim use: embedded, served verbatim, attributed.
//  - Saheeh International (en) is copyrighted by its publisher; Tanzil's translations (bn, es, fr, ru, sv,
//    tr, ur, transliteration) are offered "for non-commercial purposes only"; the QuranEnc translations
//    (id, zh) carry QuranEnc's own terms. None is cleared for a service that may be run commercially, so
//    they are NOT embedded: those ids go to the upstream, which publishes them itself.
// An operator who has cleared an edition can flip `embedded` (and nothing else) to serve it offline.
export interface EditionRow {
  /** quran-json file below dist/ */
  file: string;
  /** AlQuran Cloud identifier (quran-a), when AlQuran Cloud has this text. */
  alquran?: string;
  /** fawazahmed0/quran-api edition name (quran-b), when known. */
  quranApi?: string;
  language: string;
  languageName: string;
  name: string;
  englishName: string;
  author: string;
  source: string;
  type: 'quran' | 'translation' | 'transliteration';
  direction: 'rtl' | 'ltr';
  embedded: boolean;
  licence: string;
}

const EDITIONS: EditionRow[] = [
  {
    file: 'quran.json',
    alquran: 'quran-uthmani',
    quranApi: 'ara-quranuthmanienc',
    language: 'ar',
    languageName: 'Arabic',
    name: 'القرآن الكريم برسم العثماني',
    englishName: 'Uthmani',
    author: 'Quran Uthmani Enc',
    source: 'https://quranenc.com',
    type: 'quran',
    direction: 'rtl',
    embedded: true,
    licence: 'Quran text, verbatim; quran-json compilation CC BY-SA 4.0',
  },
  {
    file: 'quran_en.json',
    alquran: 'en.sahih',
    quranApi: 'eng-ummmuhammad',
    language: 'en',
    languageName: 'English',
    name: 'Saheeh International',
    englishName: 'Saheeh International',
    author: 'Umm Muhammad',
    source: 'http://tanzil.net',
    type: 'translation',
    direction: 'ltr',
    embedded: false,
    licence: 'publisher copyright',
  },
  {
    file: 'quran_bn.json',
    alquran: 'bn.bengali',
    quranApi: 'ben-muhiuddinkhan',
    language: 'bn',
    languageName: 'Bengali',
    name: 'মুহিউদ্দীন খান',
    englishName: 'Muhiuddin Khan',
    author: 'Muhiuddin Khan',
    source: 'http://tanzil.net',
    type: 'translation',
    direction: 'ltr',
    embedded: false,
    licence: 'Tanzil: non-commercial only',
  },
  {
    file: 'quran_es.json',
    alquran: 'es.garcia',
    language: 'es',
    languageName: 'Spanish',
    name: 'Garcia',
    englishName: 'Muhammad Isa García',
    author: 'Muhammad Isa Garcia',
    source: 'http://tanzil.net',
    type: 'translation',
    direction: 'ltr',
    embedded: false,
    licence: 'Tanzil: non-commercial only',
  },
  {
    file: 'quran_fr.json',
    alquran: 'fr.hamidullah',
    language: 'fr',
    languageName: 'French',
    name: 'Hamidullah',
    englishName: 'Muhammad Hamidullah',
    author: 'Muhammad Hamidullah',
    source: 'http://tanzil.net',
    type: 'translation',
    direction: 'ltr',
    embedded: false,
    licence: 'Tanzil: non-commercial only',
  },
  {
    file: 'quran_id.json',
    alquran: 'id.indonesian',
    language: 'id',
    languageName: 'Indonesian',
    name: 'Bahasa Indonesia',
    englishName: 'Indonesian Ministry of Religious Affairs',
    author: 'Indonesian Islamic Affairs Ministry',
    source: 'https://quranenc.com',
    type: 'translation',
    direction: 'ltr',
    embedded: false,
    licence: 'QuranEnc terms',
  },
  {
    file: 'quran_ru.json',
    alquran: 'ru.kuliev',
    language: 'ru',
    languageName: 'Russian',
    name: 'Кулиев',
    englishName: 'Elmir Kuliev',
    author: 'Elmir Kuliev',
    source: 'http://tanzil.net',
    type: 'translation',
    direction: 'ltr',
    embedded: false,
    licence: 'Tanzil: non-commercial only',
  },
  {
    file: 'quran_sv.json',
    alquran: 'sv.bernstrom',
    language: 'sv',
    languageName: 'Swedish',
    name: 'Bernström',
    englishName: 'Knut Bernström',
    author: 'Knut Bernstrom',
    source: 'http://tanzil.net',
    type: 'translation',
    direction: 'ltr',
    embedded: false,
    licence: 'Tanzil: non-commercial only',
  },
  {
    file: 'quran_tr.json',
    alquran: 'tr.diyanet',
    language: 'tr',
    languageName: 'Turkish',
    name: 'Diyanet İşleri',
    englishName: 'Diyanet Isleri',
    author: 'Turkish Directorate Of Religious Affairs',
    source: 'http://tanzil.net',
    type: 'translation',
    direction: 'ltr',
    embedded: false,
    licence: 'Tanzil: non-commercial only',
  },
  {
    file: 'quran_ur.json',
    alquran: 'ur.maududi',
    language: 'ur',
    languageName: 'Urdu',
    name: 'ابوالاعلی مودودی',
    englishName: "Abul A'ala Maududi",
    author: 'Abul Ala Maududi',
    source: 'http://tanzil.net',
    type: 'translation',
    direction: 'rtl',
    embedded: false,
    licence: 'Tanzil: non-commercial only',
  },
  {
    file: 'quran_zh.json',
    language: 'zh',
    languageName: 'Chinese',
    name: '马坚',
    englishName: 'Muhammad Makin',
    author: 'Muhammad Makin',
    source: 'https://quranenc.com',
    type: 'translation',
    direction: 'ltr',
    embedded: false,
    licence: 'QuranEnc terms',
  },
  {
    file: 'quran_transliteration.json',
    alquran: 'en.transliteration',
    language: 'en',
    languageName: 'English',
    name: 'Transliteration',
    englishName: 'English Transliteration',
    author: 'Tanzil',
    source: 'http://tanzil.net',
    type: 'transliteration',
    direction: 'ltr',
    embedded: false,
    licence: 'Tanzil: non-commercial only',
  },
];

export const EMBEDDED = EDITIONS.filter((e) => e.embedded);

export function embeddedByAlquranId(id: string): EditionRow | undefined {
  return EMBEDDED.find((e) => e.alquran === id);
}

export function embeddedByQuranApiName(name: string): EditionRow | undefined {
  // quran-api spells names with '-', its editions.json keys with '_': accept both.
  const n = name.replace(/_/g, '-');
  return EMBEDDED.find((e) => e.quranApi === n);
}
