// The body parsers of a POST endpoint: JSON and urlencoded (Express's, from body-parser) and multipart
// (multer, its files on disk). Imported by the parse step at an endpoint's first POST, so that a boot,
// and a server that only answers GETs, never load Express's body parsing or multer.
import fs from 'node:fs';
import crypto from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import express from 'express';
import multer from 'multer';
import { refuseDeepJson } from '../json-depth.js';

/** A body parser of Express's kind (body-parser, multer): they need no more of req and res than node:http's. */
export type BodyParser = (req: IncomingMessage, res: ServerResponse, next: (err?: unknown) => void) => void;

/** `textLimit`: the most a JSON or urlencoded body, or a multipart field, may hold. */
export function bodyParsers(
  opts: { uploadDir: string; maxUploadBytes: number },
  textLimit: number,
  fileFields: Array<{ name: string; maxCount: number }>,
): BodyParser[] {
  const upload = multer({
    storage: multer.diskStorage({
      destination: (_req, _file, cb) => {
        fs.mkdirSync(opts.uploadDir, { recursive: true });
        cb(null, opts.uploadDir);
      },
      filename: (_req, _file, cb) => cb(null, `up-${crypto.randomBytes(12).toString('hex')}`),
    }),
    limits: {
      fileSize: opts.maxUploadBytes,
      files: Math.max(1, fileFields.length),
      fields: 50,
      fieldSize: textLimit,
      parts: 60,
      fieldNameSize: 100,
    },
    // File names in UTF-8 (multer reads them as latin1 by default, garbling é.pdf).
    defParamCharset: 'utf8',
  });
  return [
    express.json({ limit: textLimit, strict: true, verify: refuseDeepJson }) as BodyParser,
    express.urlencoded({ extended: false, limit: textLimit, parameterLimit: 100 }) as BodyParser,
    (fileFields.length ? upload.fields(fileFields) : upload.none()) as BodyParser,
  ];
}
