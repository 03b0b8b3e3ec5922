// Where the portal's static files are: portal/static in the source tree, which tsc does not copy into dist/
// (as server/config.ts does for catalog/), so a built server reads them from the tree beside dist/ too.
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const up = path.resolve(here, '../..');
const root = path.basename(up) === 'dist' ? path.dirname(up) : up;

export const STATIC_DIR = path.join(root, 'portal', 'static');
