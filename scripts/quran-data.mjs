// Copies the quran-json files that the service serves into adapters/books/quran-data/: the surah names and
// the text of every edition that adapters/books/_quran-editions.ts marks `embedded: true` (read from the
// built table in dist/, so run `npm run build` first). See adapters/books/quran-data/README.md.
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const source = path.join(path.dirname(createRequire(import.meta.url).resolve('quran-json/package.json')), 'dist');
const { EMBEDDED } = await import(path.join(root, 'dist/adapters/books/_quran-editions.js'));
for (const file of ['chapters/en/index.json', ...EMBEDDED.map((e) => e.file)]) {
  const to = path.join(root, 'adapters/books/quran-data', file);
  fs.mkdirSync(path.dirname(to), { recursive: true });
  fs.copyFileSync(path.join(source, file), to);
  console.log(`${file}: ${fs.statSync(to).size} bytes`);
}
