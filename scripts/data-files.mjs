// Makes the data files the embedded endpoints read at run time, from data packages that are only
// devDependencies (a production install would otherwise carry 95 MB of quran-json and 49 MB of
// emojibase-data for 2 MB of what is served). Each folder's README says where its files come from.
//   - adapters/books/quran-data/: the surah names and the text of every edition that
//     adapters/books/_quran-editions.ts marks `embedded: true` (read from the built table: `npm run build` first)
//   - adapters/art-design/emoji-data/: emojibase-data's English list, keeping the fields _emoji-data.ts reads
//   - engine/region-names.json: the English name of every region code, as this Node's ICU gives it
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(import.meta.url);
const packageDir = (name) => path.dirname(require.resolve(`${name}/package.json`));

function write(to, text) {
  fs.mkdirSync(path.dirname(to), { recursive: true });
  fs.writeFileSync(to, text);
  console.log(`${path.relative(root, to)}: ${fs.statSync(to).size} bytes`);
}

const { EMBEDDED } = await import(path.join(root, 'dist/adapters/books/_quran-editions.js'));
for (const file of ['chapters/en/index.json', ...EMBEDDED.map((e) => e.file)])
  write(path.join(root, 'adapters/books/quran-data', file), fs.readFileSync(path.join(packageDir('quran-json'), 'dist', file)));

const emoji = JSON.parse(fs.readFileSync(path.join(packageDir('emojibase-data'), 'en/data.json'), 'utf8'));
const kept = emoji.map(({ label, hexcode, emoji: e, group, subgroup }) => ({ label, hexcode, emoji: e, group, subgroup }));
write(path.join(root, 'adapters/art-design/emoji-data/data.json'), JSON.stringify(kept));
write(
  path.join(root, 'adapters/art-design/emoji-data/groups.json'),
  fs.readFileSync(path.join(packageDir('emojibase-data'), 'meta/groups.json')),
);

// Every two-letter code ICU names (ISO 3166-1 and CLDR's own, such as XK and EU): the adapters read the table,
// because asking Intl.DisplayNames at run time keeps ~4.5 MB of ICU's data resident for the process's life.
const regions = new Intl.DisplayNames(['en'], { type: 'region' });
const letters = [...'ABCDEFGHIJKLMNOPQRSTUVWXYZ'];
const names = Object.fromEntries(
  letters.flatMap((a) => letters.map((b) => a + b)).flatMap((code) => (regions.of(code) !== code ? [[code, regions.of(code)]] : [])),
);
write(path.join(root, 'engine/region-names.json'), `${JSON.stringify(names, null, 1)}\n`);
