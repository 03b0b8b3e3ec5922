// Text-to-image: GET /image/{prompt}?model=flux&width=1024&height=1024&nologo=true (path, model and size
// in catalog/upstreams.yaml, pollinations → settings.image). The image is hosted for a day.
import type { Adapter } from './_catalog.js';
import { fetchMedia, hostMedia } from './_media.js';
import { pollinations, promptOf, promptPath, setting } from './_pollinations.js';

const image01: Adapter<'gen-models/image-01'> = async (params, ctx) => {
  const q = promptOf(params);
  const { client, callerKey } = pollinations(params, ctx);
  const model = setting(client, ['image', 'model'], 'flux');
  const media = await fetchMedia(
    client,
    {
      path: promptPath(setting(client, ['image', 'path'], '/image/{prompt}'), q),
      searchParams: {
        model,
        width: setting(client, ['image', 'width'], 1024),
        height: setting(client, ['image', 'height'], 1024),
        nologo: true,
      },
      callerKey,
    },
    'image',
  );
  return hostMedia(ctx, media, { model });
};

export default image01;
