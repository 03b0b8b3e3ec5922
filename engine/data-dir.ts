// Data files that adapters read at run time live beside their code in the source tree
// (adapters/<category>/<name>/), which tsc does not copy into dist/: from a built module, look there.
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The folder `name` beside the module at `moduleUrl`, in the source tree even when that module is built. */
export function dataDir(moduleUrl: string, name: string): string {
  const here = path.dirname(fileURLToPath(moduleUrl));
  // dist/adapters/<category>/ once built: the source tree's adapters/<category>/ is three levels up and down.
  const parts = here.split(path.sep);
  const dist = parts.lastIndexOf('dist');
  const source = dist >= 0 ? [...parts.slice(0, dist), ...parts.slice(dist + 1)].join(path.sep) : here;
  return path.join(source, name);
}
