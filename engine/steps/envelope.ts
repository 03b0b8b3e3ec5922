// The envelope step: the answer of a successful call, as raw media when the caller asked for the media's
// type, else in the JSON envelope with its metadata (engine/respond.ts writes both).
import type { Request, Response } from 'express';
import { callOf } from '../call.js';
import { sendData, sendMedia, wantsMedia } from '../respond.js';

export function envelope(serviceName: string) {
  return (req: Request, res: Response) => {
    const call = callOf(res);
    const out = call.outcome!;
    if (out.media && wantsMedia(req, out.media.contentType)) return sendMedia(res, out.media.bytes, out.media.contentType);
    sendData(res, serviceName, out.source, out.data, { endpoint: call.endpoint, requestId: call.id, elapsedMs: call.elapsedMs, cached: out.cached }, out.dataJson);
  };
}
