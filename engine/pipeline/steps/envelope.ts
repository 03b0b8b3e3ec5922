// The envelope step: the answer of a successful call, as raw media when the caller asked for the media's
// type, else in the JSON envelope with its metadata (engine/pipeline/respond.ts writes both).
import type { Call } from '../call.js';
import { sendData, sendMedia, wantsMedia } from '../respond.js';

export function envelope(serviceName: string) {
  return (call: Call) => {
    const out = call.outcome!;
    if (out.media && wantsMedia(call.req, out.media.contentType)) return sendMedia(call, out.media.bytes, out.media.contentType);
    sendData(call, serviceName, out.source, out.data, out.cached, out.dataJson);
  };
}
