// The earlier key-value layout as its code made it (tests/fixtures/legacy/, made by make-legacy.ts.txt with
// the code of that layout): its SQLite file copied into a data directory, or its Redis keys loaded under a
// fresh prefix, and what an importer must find there.
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { RedisClientType } from 'redis';

const DIR = new URL('../fixtures/legacy/', import.meta.url);

export interface Expected {
  generatedAt: string;
  counts: Record<string, number>;
  sqlite: { collections: Record<string, { count: number; ids: string[] }> };
  redis: { collections: Record<string, { count: number; ids: string[] }> };
}
export const expected = JSON.parse(fs.readFileSync(new URL('expected.json', DIR), 'utf8')) as Expected;

/** A data directory holding the earlier layout's uua.sqlite. */
export function legacyDataDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'uua-legacy-'));
  fs.copyFileSync(new URL('uua.sqlite', DIR), path.join(dir, 'uua.sqlite'));
  return dir;
}

type DumpedKey = { pttl: number } & (
  { type: 'hash'; value: Record<string, string> } | { type: 'string'; value: string } | { type: 'list'; value: string[] }
);

/** Loads the earlier layout's Redis keys under a fresh prefix; returns the prefix. */
export async function loadLegacyRedis(redis: RedisClientType): Promise<string> {
  const prefix = `test-legacy-${crypto.randomUUID()}:`;
  const dump = JSON.parse(fs.readFileSync(new URL('redis.json', DIR), 'utf8')) as Record<string, DumpedKey>;
  for (const [key, k] of Object.entries(dump)) {
    const name = prefix + key;
    if (k.type === 'hash') await redis.hSet(name, k.value);
    else if (k.type === 'string') await redis.set(name, k.value);
    else await redis.rPush(name, k.value);
    if (k.pttl > 0) await redis.pExpire(name, k.pttl);
  }
  return prefix;
}
