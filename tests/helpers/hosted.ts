// The typed fields of each hosted kind (engine/blob-store.ts), for tests that store blobs directly: a
// store takes no blob without its kind's fields. Spread one in and override what a test looks at.
import type { FileFields, ImageFields, PasteFields } from '../../engine/adapter.js';

export const PASTE: PasteFields = { kind: 'paste', name: 'Untitled', format: 'text', private: 0, expire: 'N' };
export const IMAGE: ImageFields = { kind: 'image', fileName: 'image.png', ext: 'png', width: null, height: null, deleteHash: '' };
export const FILE: FileFields = { kind: 'file', fileName: 'file.bin', fileId: '', md5: '' };
