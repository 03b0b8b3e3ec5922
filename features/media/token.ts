// The token of a /media/<token> link: what the service needs to fetch the media again, sealed so that a
// caller can neither read it (it names upstream hosts, some of them internal) nor change it.
// Encrypt-then-MAC: AES-256-CTR under a random IV, then HMAC-SHA-256 over all that comes before it. Both
// keys are derived (HKDF) from one server secret; the token starts with the secret's id, so a rotated
// secret still opens the links it signed while they live (docs/decisions/media-links.md).
import crypto from 'node:crypto';

/** What a link carries. Short names: the token is in a URL. */
export interface MediaLink {
  /** The upstream's own media URL. */
  u: string;
  /** The provider that answered (its upstream id): the headers its CDN wants, whether it is self-hosted. */
  s: string;
  /** The endpoint and the post link it was asked for, to ask again when the upstream's link dies first. */
  e: string;
  p: Record<string, unknown>;
  /** The media's place in the answer's list, to find it in a fresh answer. */
  i: number;
  /** The key that made the link (its id), and its plan: a revoked key's links stop. */
  k: string;
  l: string;
  /** A clean file name for Content-Disposition. */
  n: string;
  /** Expiry, epoch seconds. */
  x: number;
}

interface SealingKey {
  id: Buffer;
  enc: Buffer;
  mac: Buffer;
}

const ID_BYTES = 4;
const IV_BYTES = 16;
const MAC_BYTES = 32;

function derive(secret: Buffer): SealingKey {
  const key = (info: string) => Buffer.from(crypto.hkdfSync('sha256', secret, Buffer.alloc(0), info, 32));
  return { id: crypto.hash('sha256', secret, 'buffer').subarray(0, ID_BYTES), enc: key('media-link enc'), mac: key('media-link mac') };
}

export type Opened = { ok: true; link: MediaLink } | { ok: false; why: 'malformed' | 'unknown-secret' | 'tampered' | 'expired' };

export class MediaSeal {
  private readonly signing: SealingKey;
  private readonly byId = new Map<string, SealingKey>();

  /** `secrets[0]` signs; every one of them opens. */
  constructor(secrets: Buffer[]) {
    if (!secrets.length) throw new Error('media links need at least one secret');
    const keys = secrets.map(derive);
    this.signing = keys[0];
    for (const k of keys) if (!this.byId.has(k.id.toString('hex'))) this.byId.set(k.id.toString('hex'), k);
  }

  seal(link: MediaLink): string {
    const k = this.signing;
    const iv = crypto.randomBytes(IV_BYTES);
    const cipher = crypto.createCipheriv('aes-256-ctr', k.enc, iv);
    const body = Buffer.concat([k.id, iv, cipher.update(JSON.stringify(link), 'utf8'), cipher.final()]);
    const mac = crypto.createHmac('sha256', k.mac).update(body).digest();
    return Buffer.concat([body, mac]).toString('base64url');
  }

  open(token: string, now = Date.now()): Opened {
    if (!/^[A-Za-z0-9_-]{40,8000}$/.test(token)) return { ok: false, why: 'malformed' };
    const raw = Buffer.from(token, 'base64url');
    if (raw.length <= ID_BYTES + IV_BYTES + MAC_BYTES) return { ok: false, why: 'malformed' };
    const k = this.byId.get(raw.subarray(0, ID_BYTES).toString('hex'));
    if (!k) return { ok: false, why: 'unknown-secret' };
    const body = raw.subarray(0, raw.length - MAC_BYTES);
    const mac = crypto.createHmac('sha256', k.mac).update(body).digest();
    if (!crypto.timingSafeEqual(mac, raw.subarray(raw.length - MAC_BYTES))) return { ok: false, why: 'tampered' };
    const iv = body.subarray(ID_BYTES, ID_BYTES + IV_BYTES);
    const decipher = crypto.createDecipheriv('aes-256-ctr', k.enc, iv);
    let link: MediaLink;
    try {
      link = JSON.parse(
        Buffer.concat([decipher.update(body.subarray(ID_BYTES + IV_BYTES)), decipher.final()]).toString('utf8'),
      ) as MediaLink;
    } catch {
      return { ok: false, why: 'malformed' };
    }
    if (!(link.x * 1000 > now)) return { ok: false, why: 'expired' };
    return { ok: true, link };
  }
}
