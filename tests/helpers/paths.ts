// Where things are, for tests at any depth below tests/.
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The project's root folder. */
export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
/** tests/fixtures/: fake upstreams' payloads, one folder per upstream. */
export const FIXTURES = path.join(ROOT, 'tests', 'fixtures');
