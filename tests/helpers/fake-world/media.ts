// Fakes of the chat, generation, download, hosting and exchange upstreams. Media answers are small but
// real files (file-type recognises each by its signature, as it would a provider's).
import { mp3, mp4, png } from '../media-files.js';
import type { FakeRequest } from '../fake-upstream.js';
import { json, type Answers } from './fixture.js';

/** cobalt's answer for the service a link belongs to. */
const COBALT: Array<[RegExp, string]> = [
  [/youtube|youtu\.be/, 'tunnel-youtube.json'],
  [/facebook/, 'redirect-facebook.json'],
  [/instagram/, 'picker-instagram.json'],
  [/tiktok/, 'tunnel-tiktok.json'],
  [/x\.com|twitter/, 'tunnel-twitter.json'],
];

function cobalt(req: FakeRequest) {
  const url = String((req.json() as { url?: string }).url);
  const hit = COBALT.find(([re]) => re.test(url));
  return hit ? json('cobalt', hit[1])(req, {}) : json('cobalt', 'error-link-invalid.json', { status: 400 })(req, {});
}

export const MEDIA: Record<string, Answers> = {
  'openai-compat': { 'POST /chat/completions': json('openai-compat', 'completion.json') },
  perplexity: { 'POST /chat/completions': json('perplexity', 'sonar.json') },
  pollinations: {
    'POST /v1/chat/completions': json('pollinations', 'chat.json'),
    'GET /v1/models': () => ({ json: [] }),
    'GET /image/:prompt': (r) =>
      r.query.get('model') === 'veo'
        ? { headers: { 'content-type': 'video/mp4' }, body: mp4 }
        : { headers: { 'content-type': 'image/png' }, body: png },
    'GET /audio/:prompt': () => ({ headers: { 'content-type': 'audio/mpeg' }, body: mp3 }),
  },
  cobalt: { 'POST /': cobalt },
  tikwm: { 'GET /api/': json('tikwm', 'video.json') },
  fxtwitter: { 'GET /status/:id': json('fxtwitter', 'video.json') },
  gofile: { 'POST /uploadfile': json('gofile', 'uploadfile.json') },
  imgbb: { 'POST /1/upload': json('imgbb', 'upload.json') },
  'binance-p2p': { 'POST /bapi/c2c/v2/friendly/c2c/adv/search': json('binance-p2p', 'search-buy.json') },
};
