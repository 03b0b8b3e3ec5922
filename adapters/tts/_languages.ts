// The 69 speech languages (gTTS's list plus `zh`) and 15 accents (gTTS's 17 minus the two Mandarin rows),
// with the eSpeak NG voice that reads each one, and the one function that turns a caller's lang/accent
// into a voice or the exact 400 of upstreams.md §5.
import { badInput, invalidParam } from '../../engine/adapter.js';

export interface Language {
  code: string;
  name: string;
  /** eSpeak NG voice (a language tag of list_voices()), or null when none fits at all. */
  voice: string | null;
  /** True when the voice is a related language's or region's, not the language's own. */
  approximate: boolean;
  /** No eSpeak voice of its own: read by google-tts when the operator configures it. */
  foreign?: true;
}

export interface Accent {
  lang: string;
  /** The Google domain suffix gTTS uses for this accent. */
  tld: string;
  /** ISO region; `aliases` are also accepted as input. */
  region: string;
  aliases?: string[];
  name: string;
  voice: string;
  approximate: boolean;
}

const L = (code: string, name: string, voice: string | null, approximate = false, foreign = false): Language => ({
  code,
  name,
  voice,
  approximate,
  ...(foreign ? { foreign: true as const } : {}),
});

export const LANGUAGES: readonly Language[] = [
  L('af', 'Afrikaans', 'af'),
  L('am', 'Amharic', 'am'),
  L('ar', 'Arabic', 'ar'),
  L('bg', 'Bulgarian', 'bg'),
  L('bn', 'Bengali', 'bn'),
  L('bs', 'Bosnian', 'bs'),
  L('ca', 'Catalan', 'ca'),
  L('cs', 'Czech', 'cs'),
  L('cy', 'Welsh', 'cy'),
  L('da', 'Danish', 'da'),
  L('de', 'German', 'de'),
  L('el', 'Greek', 'el'),
  L('en', 'English', 'en-us'),
  L('es', 'Spanish', 'es'),
  L('et', 'Estonian', 'et'),
  L('eu', 'Basque', 'eu'),
  L('fi', 'Finnish', 'fi'),
  L('fr', 'French', 'fr-fr'),
  L('fr-CA', 'French (Canada)', 'fr-fr', true),
  // gl, ha, jw, su, tl: no eSpeak voice; a related orthography's rules read them well enough.
  L('gl', 'Galician', 'es', true, true),
  L('gu', 'Gujarati', 'gu'),
  L('ha', 'Hausa', 'sw', true, true),
  L('hi', 'Hindi', 'hi'),
  L('hr', 'Croatian', 'hr'),
  L('hu', 'Hungarian', 'hu'),
  L('id', 'Indonesian', 'id'),
  L('is', 'Icelandic', 'is'),
  L('it', 'Italian', 'it'),
  L('iw', 'Hebrew', 'he'),
  L('ja', 'Japanese', 'ja'),
  L('jw', 'Javanese', 'id', true, true),
  // Khmer script is unreadable by any eSpeak voice: google-tts or nothing.
  L('km', 'Khmer', null, false, true),
  L('kn', 'Kannada', 'kn'),
  L('ko', 'Korean', 'ko'),
  L('la', 'Latin', 'la'),
  L('lt', 'Lithuanian', 'lt'),
  L('lv', 'Latvian', 'lv'),
  L('ml', 'Malayalam', 'ml'),
  L('mr', 'Marathi', 'mr'),
  L('ms', 'Malay', 'ms'),
  L('my', 'Myanmar (Burmese)', 'my'),
  L('ne', 'Nepali', 'ne'),
  L('nl', 'Dutch', 'nl'),
  L('no', 'Norwegian', 'nb'),
  L('pa', 'Punjabi (Gurmukhi)', 'pa'),
  L('pl', 'Polish', 'pl'),
  L('pt', 'Portuguese (Brazil)', 'pt-br'),
  L('pt-PT', 'Portuguese (Portugal)', 'pt'),
  L('ro', 'Romanian', 'ro'),
  L('ru', 'Russian', 'ru'),
  L('si', 'Sinhala', 'si'),
  L('sk', 'Slovak', 'sk'),
  L('sq', 'Albanian', 'sq'),
  L('sr', 'Serbian', 'sr'),
  L('su', 'Sundanese', 'id', true, true),
  L('sv', 'Swedish', 'sv'),
  L('sw', 'Swahili', 'sw'),
  L('ta', 'Tamil', 'ta'),
  L('te', 'Telugu', 'te'),
  L('th', 'Thai', 'th'),
  L('tl', 'Filipino', 'id', true, true),
  L('tr', 'Turkish', 'tr'),
  L('uk', 'Ukrainian', 'uk'),
  L('ur', 'Urdu', 'ur'),
  L('vi', 'Vietnamese', 'vi'),
  L('yue', 'Cantonese', 'yue'),
  L('zh-CN', 'Chinese (Simplified)', 'cmn'),
  L('zh-TW', 'Chinese (Mandarin/Taiwan)', 'cmn', true),
  L('zh', 'Chinese (Mandarin)', 'cmn'),
];

const A = (lang: string, tld: string, region: string, name: string, voice: string, approximate = false, aliases?: string[]): Accent => ({
  lang,
  tld,
  region,
  ...(aliases ? { aliases } : {}),
  name,
  voice,
  approximate,
});

export const ACCENTS: readonly Accent[] = [
  A('en', 'com.au', 'AU', 'English (Australia)', 'en-gb', true),
  A('en', 'co.uk', 'GB', 'English (United Kingdom)', 'en-gb', false, ['UK']),
  A('en', 'us', 'US', 'English (United States)', 'en-us'),
  A('en', 'ca', 'CA', 'English (Canada)', 'en-us', true),
  A('en', 'co.in', 'IN', 'English (India)', 'en-gb', true),
  A('en', 'ie', 'IE', 'English (Ireland)', 'en-gb', true),
  A('en', 'co.za', 'ZA', 'English (South Africa)', 'en-gb', true),
  A('en', 'com.ng', 'NG', 'English (Nigeria)', 'en-gb', true),
  A('fr', 'ca', 'CA', 'French (Canada)', 'fr-fr', true),
  A('fr', 'fr', 'FR', 'French (France)', 'fr-fr'),
  A('pt', 'com.br', 'BR', 'Portuguese (Brazil)', 'pt-br'),
  A('pt', 'pt', 'PT', 'Portuguese (Portugal)', 'pt'),
  A('es', 'com.mx', 'MX', 'Spanish (Mexico)', 'es-mx'),
  A('es', 'es', 'ES', 'Spanish (Spain)', 'es'),
  A('es', 'us', 'US', 'Spanish (United States)', 'es-419'),
];

/** The spec's default accent, applied to the languages that have it only. */
const DEFAULT_ACCENT = 'US';
const DEFAULTED = new Set(['en', 'es']);

const byCode = new Map(LANGUAGES.map((l) => [l.code.toLowerCase(), l]));

/** Codes are matched case-insensitively (`zh-cn` is `zh-CN`). */
function findLanguage(code: string): Language | undefined {
  return byCode.get(code.trim().toLowerCase());
}

/** The language or the 400 every tts endpoint gives for an unknown one. */
export function languageOrFail(code: string): Language {
  const lang = findLanguage(code);
  if (!lang) throw invalidParam('lang', `unsupported language "${code}"; see /api/v1/tts/langlist for the 69 codes`);
  return lang;
}

export function accentsOf(lang: Language): Accent[] {
  return ACCENTS.filter((a) => a.lang === lang.code);
}

export interface VoiceChoice {
  language: Language;
  accent: Accent | null;
  /** eSpeak voice tag, or null (km). */
  voice: string | null;
  approximate: boolean;
}

/**
 * `accent` is undefined when the caller gave none. It matches a tld or a region, case-insensitively.
 * Errors are upstreams.md's, word for word.
 */
export function chooseVoice(langCode: string, accent: string | undefined): VoiceChoice {
  const language = languageOrFail(langCode);
  const accents = accentsOf(language);
  // The catalog's default US reaches every language; it names an accent for en and es only.
  const given = accent?.trim() === DEFAULT_ACCENT && !DEFAULTED.has(language.code) ? undefined : accent?.trim();
  const asked = given || (DEFAULTED.has(language.code) ? DEFAULT_ACCENT : undefined);
  if (asked === undefined) return { language, accent: null, voice: language.voice, approximate: language.approximate };
  if (!accents.length) throw badInput(`Language '${language.code}' does not support accents`);
  const want = asked.toLowerCase();
  const found = accents.find((a) => [a.tld, a.region, ...(a.aliases ?? [])].some((v) => v.toLowerCase() === want));
  if (!found) throw badInput(`Invalid accent for ${language.code}. Valid accents: ${accents.map((a) => a.region).join(', ')}`);
  return { language, accent: found, voice: found.voice, approximate: found.approximate };
}
