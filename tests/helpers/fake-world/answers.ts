// The fake world's answers, by upstream id of catalog/upstreams.yaml.
import type { Answers } from './fixture.js';
import { ANIME_ART } from './anime-art.js';
import { BOOKS_QUOTES_VIDEO } from './books-quotes-video.js';
import { MEDIA } from './media.js';
import { TOOLS_UTILITIES } from './tools-utilities.js';

export const ANSWERS: Record<string, Answers> = { ...ANIME_ART, ...BOOKS_QUOTES_VIDEO, ...MEDIA, ...TOOLS_UTILITIES };
