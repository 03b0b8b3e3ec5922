// The secrets that seal media links: the operator's MEDIA_LINK_SECRETS (the first signs) and the server's
// own, made once in the `secrets` table and shared by every instance, which always opens the links it
// sealed. Rotating: put a new secret first in MEDIA_LINK_SECRETS and keep the old one after it for one
// MEDIA_LINK_TTL; links signed with the old one live out their time.
import crypto from 'node:crypto';
import type { Db } from '../../engine/db/open.js';
import { MediaSeal } from './token.js';

const NAME = 'media-links';

async function storedSecret(db: Db): Promise<Buffer> {
  await db
    .insertInto('secrets')
    .values({ name: NAME, value: crypto.randomBytes(32).toString('base64url') })
    .onConflict((oc) => oc.column('name').doNothing())
    .execute();
  const row = await db.selectFrom('secrets').select('value').where('name', '=', NAME).executeTakeFirstOrThrow();
  return Buffer.from(row.value, 'base64url');
}

/** The seal, made on first use; a database that was down is asked again next time. */
export function mediaSeal(db: Db, configured: string[]): () => Promise<MediaSeal> {
  let kept: Promise<MediaSeal> | undefined;
  return () => {
    kept ??= storedSecret(db)
      .then((own) => new MediaSeal([...configured.map((s) => Buffer.from(s, 'utf8')), own]))
      .catch((err: unknown) => {
        kept = undefined;
        throw err;
      });
    return kept;
  };
}
