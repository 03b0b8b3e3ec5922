// Media in an endpoint's answer, as MCP content a client can use: an image or a sound the service hosts
// (a URL under PUBLIC_URL, such as tts's MP3) or carries as a data: URL (noise-image's PNG) becomes
// `image` or `audio` content, base64; any other hosted file (a paste, an upload's page, a big video)
// becomes a resource link to its URL. Hosted files are read through the app itself (mcp/inject.ts), so
// whatever backend hosts them (disk, object store) is the one that answers.
import type { ContentBlock } from '@modelcontextprotocol/sdk/types.js';
import type { Injector } from './inject.js';

/** Bigger media are linked rather than embedded: a tool result travels whole in one JSON-RPC message. */
const MAX_EMBED_BYTES = 8 * 1024 * 1024;
/** Answers name a handful of media at most; more strings that look like URLs are not all fetched. */
const MAX_MEDIA = 8;
const DATA_URL = /^data:((?:image|audio)\/[A-Za-z0-9.+-]+);base64,([A-Za-z0-9+/=]+)$/;

export async function mediaContent(data: unknown, publicUrl: string, inject: Injector): Promise<ContentBlock[]> {
  const out: ContentBlock[] = [];
  const isHosted = (v: string) => v.startsWith(`${publicUrl}/`) && !v.includes('/delete/');
  const media = [...new Set(strings(data, 0))].filter((v) => v.startsWith('data:') || isHosted(v)).slice(0, MAX_MEDIA);
  for (const value of media) {
    const inline = DATA_URL.exec(value);
    if (inline) out.push(embedded(inline[1], inline[2]));
    else if (isHosted(value)) out.push(await hosted(value, value.slice(publicUrl.length), inject));
  }
  return out;
}

function embedded(mimeType: string, base64: string): ContentBlock {
  return mimeType.startsWith('audio/') ? { type: 'audio', data: base64, mimeType } : { type: 'image', data: base64, mimeType };
}

async function hosted(uri: string, path: string, inject: Injector): Promise<ContentBlock> {
  const head = await inject({ method: 'HEAD', url: path, headers: { accept: '*/*' } });
  const mimeType = String(head.headers['content-type'] ?? '')
    .split(';')[0]
    .trim();
  const size = Number(head.headers['content-length'] ?? Infinity);
  const name = decodeURIComponent(path.split('/').pop() || path);
  if (head.statusCode === 200 && /^(image|audio)\//.test(mimeType) && size <= MAX_EMBED_BYTES) {
    const got = await inject({ method: 'GET', url: path, headers: { accept: '*/*' } });
    if (got.statusCode === 200) return embedded(mimeType, got.rawPayload.toString('base64'));
  }
  return { type: 'resource_link', uri, name, ...(mimeType && head.statusCode === 200 ? { mimeType } : {}) };
}

/** The string values of an answer, a few levels deep (media sit at `url` or `medias[].url`). */
function strings(value: unknown, depth: number): string[] {
  if (typeof value === 'string') return [value];
  if (depth > 3 || value === null || typeof value !== 'object') return [];
  return Object.values(value).flatMap((v) => strings(v, depth + 1));
}
