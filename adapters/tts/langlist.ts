// The 69 speech languages and the eSpeak voice reading each (static: see _languages.ts).
import type { Adapter } from './_catalog.js';
import { LANGUAGES } from './_languages.js';

const languages = LANGUAGES.map(({ code, name, voice, approximate }) => ({ code, name, voice, approximate }));

const langlist: Adapter<'tts/langlist'> = async () => ({ total: languages.length, languages });

export default langlist;
