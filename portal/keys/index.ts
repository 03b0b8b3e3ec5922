// What the other slices use of keys/: the viewer's keys (the usage page) and the key the reference's Try it
// fills in (docs/).
export { subjectOf, tryItKey, viewerKeys } from './keys.js';
