// Moving the sidecars earlier builds kept beside each blob (features/hosting/sidecars.ts) into the `hosted`
// table, from a DATA_DIR and from a bucket, on both engines: the server refuses to start beside them; every
// readable one is moved (the loose shapes of stored-meta.ts included) and deleted, the unreadable one left,
// the bucket's expiry markers dropped; a second run moves none; then every kind is served as before.
import fs from 'node:fs';
import path from 'node:path';
import pino from 'pino';
import { openDatabase, type OpenDatabase } from '../../../engine/db/open.js';
import { openSidecars } from '../../../features/hosting/blobs.js';
import { importSidecars, sidecarsLeftBehind } from '../../../features/hosting/sidecars.js';
import { loadConfig } from '../../../server/config.js';
import { testApp } from '../../helpers/app.js';
import { describeEngines, engineTest } from '../../helpers/db.js';
import { startS3Server, type S3Server } from '../../helpers/s3-server.js';
import { bucketSidecars, diskSidecars, expectServedAsBefore, SIDECARS, UNREADABLE } from '../../helpers/sidecars.js';

const log = pino({ level: 'silent' });
const REFUSAL = /holds metadata of hosted blobs beside their bytes \(<id>\.json\), not yet in the tables\. Run `npm run migrate`/;

let s3: S3Server | undefined;
afterAll(async () => {
  await s3?.close();
});

describeEngines('sidecars moved into the table', (_engine, open) => {
  describe.each(['disk', 's3'] as const)('from the %s', (backend) => {
    engineTest(
      'refused, then moved once and deleted; a second run moves none; then served as before',
      async () => {
        const { dataDir, url } = (await open()) as OpenDatabase & { dataDir: string; url?: string };
        let env: Record<string, string> = { DATA_DIR: dataDir, ...(url && { DATABASE_URL: url }) };
        if (backend === 's3') {
          s3 = await startS3Server({ bucket: `b${Date.now()}` });
          env = { ...env, ...s3.env };
          await bucketSidecars(s3);
        } else diskSidecars(dataDir);

        await expect(testApp(env, { dataDir })).rejects.toThrow(REFUSAL);

        const config = loadConfig(env);
        // The engine's database as `npm run migrate` opens it.
        const t0 = await openDatabase({ dataDir, databaseUrl: url });
        const source = openSidecars(config, log);
        try {
          const first = await importSidecars(source, t0.db);
          expect(first.counts).toEqual({ hosted: { read: SIDECARS.length, written: SIDECARS.length } });
          expect(first.notes).toEqual([
            '1 sidecars that read as no blob (never served) left as they were',
            ...(backend === 's3' ? [`${SIDECARS.length} expiry markers of the earlier sweeper removed`] : []),
          ]);
          const ids = (await t0.db.selectFrom('hosted').select('id').where('ready', '=', 1).execute()).map((r) => r.id).sort();
          expect(ids).toEqual(SIDECARS.map((m) => m.id).sort());
          if (backend === 'disk') {
            // The bytes stay; of the sidecars only the unreadable one is left.
            expect(fs.readdirSync(path.join(dataDir, 'blobs')).filter((n) => n.endsWith('.json'))).toEqual([`${UNREADABLE.id}.json`]);
            expect(fs.readdirSync(path.join(dataDir, 'blobs')).filter((n) => !n.endsWith('.json'))).toHaveLength(SIDECARS.length + 1);
          }
          const second = await importSidecars(source, t0.db);
          expect(second.counts).toEqual({});
          expect(await sidecarsLeftBehind(source, t0.db, log)).toBeUndefined();
        } finally {
          source.close();
          await t0.close();
        }

        const t = await testApp(env, { dataDir });
        try {
          await expectServedAsBefore(t);
        } finally {
          await t.close();
          await s3?.close();
          s3 = undefined;
        }
      },
      60_000,
    );
  });

  engineTest('a store without sidecars starts, and is recorded so that the next start does not look again', async () => {
    const { dataDir, url, db } = (await open()) as OpenDatabase & { dataDir: string; url?: string };
    const t = await testApp({ ...(url && { DATABASE_URL: url }) }, { dataDir });
    await t.close();
    const recorded = await db.selectFrom('legacyImports').select('source').where('source', '=', 'hosted-sidecars:disk').execute();
    expect(recorded).toHaveLength(1);
  });
});
