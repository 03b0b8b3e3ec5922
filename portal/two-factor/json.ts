// The passkey ceremonies' requests come from passkeys.js (fetch, JSON): their answers are JSON too, the
// error pages' words included, so the script can show them.
import type { Request, Response } from 'express';
import { PageError, wrap } from '../shared/pages.js';

export const jsonRoute = (fn: (req: Request, res: Response) => Promise<unknown>) =>
  wrap(async (req, res) => {
    try {
      await fn(req, res);
    } catch (err) {
      if (!(err instanceof PageError)) throw err;
      res
        .set(err.headers)
        .status(err.status)
        .json({ error: String(err.detail) });
    }
  });

/** A refusal the script shows as it is. */
export const refused = (status: number, error: string) => new PageError(status, 'Refused', error);
