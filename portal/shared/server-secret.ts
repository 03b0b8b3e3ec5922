// A secret of the server's own (32 random bytes), made once and kept in the `secrets` table: inserted
// unless one is there, then read back, so every instance uses the one that won. A database that was down
// is asked again next time.
import crypto from 'node:crypto';
import type { Db } from '../../engine/db/open.js';

export function serverSecret(db: Db, name: string): () => Promise<Buffer> {
  let kept: Promise<Buffer> | undefined;
  return () => {
    kept ??= (async () => {
      await db
        .insertInto('secrets')
        .values({ name, value: crypto.randomBytes(32).toString('base64url') })
        .onConflict((oc) => oc.column('name').doNothing())
        .execute();
      const row = await db.selectFrom('secrets').select('value').where('name', '=', name).executeTakeFirstOrThrow();
      return Buffer.from(row.value, 'base64url');
    })().catch((err: unknown) => {
      kept = undefined;
      throw err;
    });
    return kept;
  };
}
