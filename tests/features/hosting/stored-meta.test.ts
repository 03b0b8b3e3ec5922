// The typed metadata of hosted blobs (features/hosting/types.ts) and features/hosting/stored-meta.ts: the table
// keeps exactly a kind's typed fields; the sidecars earlier builds wrote (an image's `filename`, short kinds,
// missing fields) read back typed, with the values the hosting pages showed for them. Moving whole DATA_DIRs
// and buckets of them: tests/features/hosting/sidecars.test.ts.
import fs from 'node:fs';
import path from 'node:path';
import { parseStoredMeta, upgradeMeta } from '../../../features/hosting/stored-meta.js';
import { rowOf } from '../../../features/hosting/records.js';
import type { HostedMeta } from '../../../features/hosting/types.js';
import { openBlobs } from '../../helpers/blob-store.js';
import { EARLIER, sha256 } from '../../helpers/sidecars.js';
import { FILE, IMAGE, PASTE } from '../../helpers/hosted.js';

const BASE = { contentType: 'application/octet-stream', size: 11, createdAt: '2025-01-02T03:04:05.678Z', expiresAt: null };
describe('upgradeMeta: stored records read back typed', () => {
  test('what earlier builds stored: the image filename becomes fileName, every other field keeps its name and value', () => {
    const { filename, ...image } = EARLIER.image;
    expect(upgradeMeta(EARLIER.image, 'OldImage')).toEqual({ ...image, fileName: filename });
    expect(upgradeMeta(EARLIER.image, 'OldImage')).not.toHaveProperty('filename');
    expect(upgradeMeta(EARLIER.paste, 'OldPaste')).toEqual(EARLIER.paste);
    expect(upgradeMeta(EARLIER.file, 'OldFile1')).toEqual(EARLIER.file);
    expect(upgradeMeta(EARLIER.media, 'OldMedia')).toEqual(EARLIER.media);
  });

  test('a record of today reads back as it was written', () => {
    const records: HostedMeta[] = [
      { ...BASE, id: 'Paste123', ...PASTE, name: 'n', private: 1 },
      { ...BASE, id: 'Image123', ...IMAGE, width: 3, height: 4, deleteHash: sha256('t') },
      { ...BASE, id: 'File1234', ...FILE, md5: 'abc' },
      { ...BASE, id: 'Media123', kind: 'media', expiresAt: '2099-01-01T00:00:00.000Z' },
    ];
    for (const r of records) expect(parseStoredMeta(JSON.stringify(r), r.id)).toEqual(r);
  });

  test('the short kinds adapters could once pass are the full ones', () => {
    expect(upgradeMeta({ ...EARLIER.paste, kind: 'p' }, 'OldPaste')?.kind).toBe('paste');
    expect(upgradeMeta({ ...EARLIER.image, kind: 'i' }, 'OldImage')?.kind).toBe('image');
    expect(upgradeMeta({ ...EARLIER.file, kind: 'f' }, 'OldFile1')?.kind).toBe('file');
  });

  test('missing or mistyped fields get the values the pages showed for them', () => {
    expect(upgradeMeta({ ...BASE, id: 'Paste123', kind: 'paste' }, 'Paste123')).toEqual({
      ...BASE,
      id: 'Paste123',
      kind: 'paste',
      name: 'Untitled',
      format: 'text',
      private: 0,
      expire: 'N',
    });
    expect(upgradeMeta({ ...BASE, id: 'Paste123', kind: 'paste', name: '', private: '1', format: 7 }, 'Paste123')).toMatchObject({
      name: 'Untitled',
      private: 1,
      format: '7',
    });
    expect(upgradeMeta({ ...BASE, id: 'Image123', kind: 'image', width: '64', deleteHash: 5 }, 'Image123')).toEqual({
      ...BASE,
      id: 'Image123',
      kind: 'image',
      fileName: 'Image123.img',
      ext: 'img',
      width: null,
      height: null,
      deleteHash: '',
    });
    expect(upgradeMeta({ ...BASE, id: 'Image123', kind: 'image', ext: 'gif' }, 'Image123')).toMatchObject({ fileName: 'Image123.gif' });
    expect(upgradeMeta({ ...BASE, id: 'File1234', kind: 'file' }, 'File1234')).toEqual({
      ...BASE,
      id: 'File1234',
      kind: 'file',
      fileName: 'File1234',
      fileId: '',
      md5: '',
    });
  });

  test('fields of no kind are dropped: a media record keeps only its base', () => {
    expect(upgradeMeta({ ...EARLIER.media, filename: 'x.mp3', name: 'stray', deleteHash: 'h' }, 'OldMedia')).toEqual(EARLIER.media);
    expect(upgradeMeta({ ...EARLIER.file, ext: 'pdf', private: 1 }, 'OldFile1')).toEqual(EARLIER.file);
  });

  test.each([
    ['another blob', { ...EARLIER.media, id: 'Another1' }],
    ['no size', { ...EARLIER.media, size: undefined }],
    ['a size as text', { ...EARLIER.media, size: '11' }],
    ['no createdAt', { ...EARLIER.media, createdAt: undefined }],
    ['no expiresAt', { ...EARLIER.media, expiresAt: undefined }],
    ['no contentType', { ...EARLIER.media, contentType: undefined }],
    ['an unknown kind', { ...EARLIER.media, kind: 'video' }],
    ['no kind', { ...EARLIER.media, kind: undefined }],
    ['an array', [EARLIER.media]],
    ['null', null],
  ])('%s is no blob', (_what, record) => {
    expect(upgradeMeta(JSON.parse(JSON.stringify(record)), 'OldMedia')).toBeUndefined();
  });

  test('a sidecar that is not JSON is no blob', () => {
    expect(parseStoredMeta('{"id":"OldMedia",', 'OldMedia')).toBeUndefined();
    expect(parseStoredMeta('', 'OldMedia')).toBeUndefined();
  });
});

test('the table keeps exactly the typed fields of the kind, nothing of the body', async () => {
  const { blobs, db, dataDir } = await openBlobs();
  try {
    const src = path.join(dataDir, 'upload');
    fs.writeFileSync(src, 'file bytes');
    const metas = [
      await blobs.put({ bytes: Buffer.from('p'), contentType: 'text/plain', ttlSeconds: 60, ...PASTE }),
      await blobs.put({ bytes: Buffer.from('i'), contentType: 'image/png', ...IMAGE, width: 1, height: 2 }),
      await blobs.put({ fromPath: src, contentType: 'application/pdf', ttlSeconds: null, ...FILE }),
      await blobs.put({ bytes: Buffer.from('m'), contentType: 'audio/mpeg', ttlSeconds: 60, kind: 'media' }),
    ];
    const base = ['id', 'kind', 'contentType', 'size', 'createdAt', 'expiresAt', 'ready'];
    const columns: Record<HostedMeta['kind'], string[]> = {
      paste: [...base, 'name', 'format', 'private', 'expire'],
      image: [...base, 'fileName', 'ext', 'width', 'height', 'deleteHash'],
      file: [...base, 'fileName', 'fileId', 'md5'],
      media: base,
    };
    for (const meta of metas) {
      const row = await db.selectFrom('hosted').selectAll().where('id', '=', meta.id).executeTakeFirstOrThrow();
      const filled = Object.entries(row).flatMap(([k, v]) => (v === null ? [] : [k]));
      expect(filled.sort()).toEqual(columns[meta.kind].filter((c) => c !== 'expiresAt' || meta.expiresAt !== null).sort());
      expect((await blobs.get(meta.id))?.meta).toEqual(meta);
      expect(fs.existsSync(path.join(dataDir, 'blobs', `${meta.id}.json`))).toBe(false); // no sidecar any more
    }
    // A row short of its kind's fields is refused by the table itself.
    await expect(
      db
        .insertInto('hosted')
        .values({ ...rowOf(metas[0], { ready: 1, expiresAt: null }), id: 'NoName12', name: null })
        .execute(),
    ).rejects.toThrow(/hosted_paste|CHECK constraint/i);
  } finally {
    blobs.close();
  }
});
