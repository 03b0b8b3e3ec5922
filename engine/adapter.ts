// The adapter contract: everything an adapter (adapters/<category>/<endpoint>.ts) may import from the engine,
// and the only engine file it may import (dependency-cruiser holds it to that). Params in, a data object or a
// Reply out; the errors it may raise; the helpers several categories share.
export type {
  Adapter,
  AdapterContext,
  AdapterData,
  FetchedUrl,
  FetchUrlOptions,
  Params,
  Reply,
  UploadedFile,
  UpstreamClient,
  UpstreamRequest,
  UpstreamResponse,
} from './types.js';
export { reply } from './types.js';
// Hosting: the metadata of each hosted kind, written by the adapters (NewBlob) and read by the hosting routes.
export type { BlobStore, FileFields, HostedMeta, ImageFields, NewBlob, PasteFields } from './blob-store.js';
export {
  ApiError,
  badInput,
  invalidParam,
  missingParam,
  notConfigured,
  notFound,
  payloadTooLarge,
  upstreamBusy,
  upstreamFailed,
  upstreamChanged,
  upstreamTimeout,
} from './errors.js';
export { isRecord, malformed, num, record, records, type Rec } from './upstream/shape.js';
export { oneTurn, readCompletion } from './upstream/chat-completion.js';
export { isPublicAddress } from './upstream/guarded-fetch.js';
export { pause } from './upstream/pause.js';
export { hostOfDomain } from './catalog/domain.js';
export { required } from './catalog/required.js';
export { regionName } from './region-names.js';
export { dataDir } from './data-dir.js';
export { LoadOnce } from './load-once.js';
