// Bodies read whole into memory past MAX_BODY_KB: a file sent as base64 in JSON (image-host, an MCP tool
// call), up to MAX_UPLOAD_MB and a third. Parsing one holds about three times its size (the bytes, the
// text, the parsed string) until its answer is sent, so only a few are read at once: per client address
// (429) and in all (503), each with Retry-After. Only callers whose key passed get this far
// (engine/pipeline/steps/parse.ts, mcp/router.ts); files sent as multipart stream to disk and take no place.
import type { ServerResponse } from 'node:http';
import { ApiError, upstreamBusy } from '../errors.js';

export interface LargeBodies {
  /** Takes a place for a large body until `res` closes, or returns the error that refuses it. */
  take(address: string, res: ServerResponse): ApiError | undefined;
}

export function largeBodies(limits: { perAddress: number; total: number }): LargeBodies {
  const byAddress = new Map<string, number>();
  let inFlight = 0;
  return {
    take(address, res) {
      const mine = byAddress.get(address) ?? 0;
      if (mine >= limits.perAddress)
        return new ApiError(
          'quota',
          `Too many large request bodies at once from your address: send at most ${limits.perAddress} at a time`,
          {
            'Retry-After': '1',
          },
        );
      if (inFlight >= limits.total)
        return upstreamBusy('The server is reading as many large request bodies as it can hold; try again shortly', 1);
      byAddress.set(address, mine + 1);
      inFlight++;
      res.once('close', () => {
        inFlight--;
        const left = byAddress.get(address)! - 1;
        if (left === 0) byAddress.delete(address);
        else byAddress.set(address, left);
      });
      return undefined;
    },
  };
}
