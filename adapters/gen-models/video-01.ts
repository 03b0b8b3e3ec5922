// Text-to-video: GET /image/{prompt}?model=veo → video/mp4 (pollinations → settings.video). Video models
// take minutes: the pollinations client waits 300 s (catalog/upstreams.yaml), the endpoint's budget is
// 310 s, and like every Pollinations call there is no retry: a second try would be billed a second time.
import type { Adapter } from './_catalog.js';
import { fetchMedia, hostMedia } from './_media.js';
import { pollinations, promptOf, promptPath, setting } from './_pollinations.js';

const video01: Adapter<'gen-models/video-01'> = async (params, ctx) => {
  const q = promptOf(params);
  const { client, callerKey } = pollinations(params, ctx);
  const model = setting(client, ['video', 'model'], 'veo');
  const media = await fetchMedia(
    client,
    {
      path: promptPath(setting(client, ['video', 'path'], '/image/{prompt}'), q),
      searchParams: { ...setting<Record<string, string | number | boolean>>(client, ['video', 'query'], {}), model },
      callerKey,
    },
    'video',
  );
  return hostMedia(ctx, media, { model });
};

export default video01;
