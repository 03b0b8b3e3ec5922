// Forwarding to imgbb, used only when the operator configured UPSTREAM_IMGBB_KEYS. The image was already
// read and sniffed here (non-images and SVG never leave the service); imgbb's answer is cut down to the
// same fields the self-hosted answer has, so a caller sees one shape whichever way it went.
import { upstreamChanged, type AdapterContext } from '../../engine/adapter.js';

interface ImgbbImage {
  id?: string;
  title?: string;
  url_viewer?: string;
  url?: string;
  display_url?: string;
  width?: string | number;
  height?: string | number;
  size?: string | number;
  time?: string | number;
  expiration?: string | number;
  image?: { filename?: string; name?: string; mime?: string; extension?: string; url?: string };
  delete_url?: string;
}

export async function uploadToImgbb(
  ctx: AdapterContext<'imgbb'>,
  bytes: Buffer,
  sniffed: { name: string; mime: string; ext: string },
  expiration: number,
): Promise<Record<string, unknown>> {
  const { name, mime, ext } = sniffed;
  const client = ctx.upstream('imgbb');
  const res = await client.request<{ success?: boolean; data?: ImgbbImage }>({
    path: String(client.settings.uploadPath ?? '/1/upload'),
    method: 'POST',
    searchParams: expiration ? { expiration } : undefined,
    form: { image: bytes.toString('base64'), name },
  });
  const d = res.body?.data;
  if (!res.body?.success || !d || typeof d.url !== 'string' || typeof d.id !== 'string')
    throw upstreamChanged('imgbb answered with an unexpected shape');
  const str = (v: unknown, fallback = '0') => (v === undefined || v === null || v === '' ? fallback : String(v));
  const time = Number(d.time ?? Math.floor(Date.now() / 1000));
  const exp = Number(d.expiration ?? expiration);
  return {
    id: d.id,
    title: str(d.title, name),
    url_viewer: str(d.url_viewer, d.url),
    url: d.url,
    display_url: str(d.display_url, d.url),
    width: str(d.width),
    height: str(d.height),
    size: str(d.size, String(bytes.length)),
    time: String(time),
    expiration: String(exp || 0),
    expires_at: exp > 0 ? new Date((time + exp) * 1000).toISOString() : null,
    image: {
      filename: str(d.image?.filename, `${name}.${ext}`),
      name: str(d.image?.name, name),
      mime: str(d.image?.mime, mime),
      extension: str(d.image?.extension, ext),
      url: str(d.image?.url, d.url),
    },
    delete_url: str(d.delete_url, d.url_viewer ?? d.url),
  };
}
