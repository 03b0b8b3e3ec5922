// cobalt 11's `local-processing` answer (docs/api.md; api/src/processing/request.js builds it). An instance
// run with FORCE_LOCAL_PROCESSING no longer muxes or transcodes where a file needs it: it hands over the
// source streams as tunnels and says what the client's own ffmpeg should make of them:
//   {status, type: merge|mute|audio|gif|remux, service, tunnel: [url…],
//    output: {type (MIME), filename, metadata?: {title, artist, …}, subtitles?}, audio?: {copy, format, cover?, …}}
// `tunnel` lists the streams (merge: the video, then the sound; otherwise one), then a subtitle file when
// output.subtitles, then the cover art when audio.cover. The gateway never stores or transcodes media, so
// each stream becomes one media, described as what its link serves:
//   merge       → the video (without sound; the output's quality and container) and the sound (format not said)
//   audio       → the sound (in the output's format only when audio.copy keeps the codec)
//   gif         → the MP4 clip cobalt would turn into a GIF (as FxTwitter gives GIFs)
//   mute, remux → the one video, as the output names it (also any other type one stream)
import { isRecord } from '../../engine/adapter.js';
import { extensionOf, qualityOf, typeOfExtension, type DownloadMedia } from './_media.js';

export interface LocalProcessing {
  medias: DownloadMedia[];
  /** The output's file name, which cobalt made in the asked style. */
  filename: string;
  /** The real title and artist, when cobalt read them for the file's tags. */
  title: string | null;
  author: string | null;
}

const text = (x: unknown): string | null => (typeof x === 'string' && x.trim() ? x.trim() : null);

/** The answer read, or undefined when it does not have the documented shape. */
export function readLocalProcessing(b: Record<string, unknown>): LocalProcessing | undefined {
  const output = isRecord(b.output) ? b.output : undefined;
  const filename = text(output?.filename);
  const tunnels = Array.isArray(b.tunnel) ? b.tunnel : [];
  if (!output || !filename || !tunnels.length || !tunnels.every((t) => typeof t === 'string' && t)) return undefined;
  const audio = isRecord(b.audio) ? b.audio : {};
  const extras = (output.subtitles === true ? 1 : 0) + (audio.cover === true ? 1 : 0);
  const streams = (tunnels as string[]).slice(0, tunnels.length - extras);
  const ext = extensionOf(filename);
  const quality = qualityOf(filename);

  let medias: DownloadMedia[];
  if (b.type === 'merge') {
    if (streams.length < 2) return undefined;
    medias = [
      { url: streams[0], type: 'video', quality, extension: ext },
      { url: streams[1], type: 'audio', quality: null, extension: null },
    ];
  } else {
    if (!streams.length) return undefined;
    const url = streams[0];
    if (b.type === 'audio') medias = [{ url, type: 'audio', quality: null, extension: audio.copy === true ? ext : null }];
    else if (b.type === 'gif') medias = [{ url, type: 'gif', quality: null, extension: 'mp4' }];
    else {
      const type = typeOfExtension(ext, String(output.type).startsWith('audio/') ? 'audio' : 'video');
      medias = [{ url, type, quality: type === 'video' ? quality : null, extension: ext }];
    }
  }
  const tags = isRecord(output.metadata) ? output.metadata : {};
  return { medias, filename, title: text(tags.title), author: text(tags.artist) };
}
