// API keys, stored hashed (SHA-256): in a JSON file under DATA_DIR by default, in Redis when configured.
// The raw key is never stored or logged; the stored hash is compared in constant time.
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { RedisClientType } from 'redis';

export interface KeyRecord {
  /** Short public id of the key (first 12 hex chars of its hash): safe to log and to revoke by. */
  id: string;
  hash: string;
  plan: string;
  name: string;
  createdAt: string;
}

export interface KeyStore {
  find(hash: string): Promise<KeyRecord | undefined>;
  save(rec: KeyRecord): Promise<void>;
  remove(id: string): Promise<boolean>;
  list(): Promise<KeyRecord[]>;
}

export const hashKey = (key: string): string => crypto.hash('sha256', key);

/** Compares two hex hashes in constant time (every character, whatever differs), without allocating. */
export function sameHash(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return diff === 0;
}

export function newKey(): string {
  return `uua_${crypto.randomBytes(24).toString('base64url')}`;
}

export function record(key: string, plan: string, name: string): KeyRecord {
  const hash = hashKey(key);
  return { id: hash.slice(0, 12), hash, plan, name, createdAt: new Date().toISOString() };
}

export class FileKeyStore implements KeyStore {
  private keys = new Map<string, KeyRecord>();
  constructor(private readonly file: string) {
    if (fs.existsSync(file)) {
      for (const rec of JSON.parse(fs.readFileSync(file, 'utf8')) as KeyRecord[]) this.keys.set(rec.hash, rec);
    }
  }
  async find(hash: string) {
    const rec = this.keys.get(hash);
    return rec && sameHash(rec.hash, hash) ? rec : undefined;
  }
  async save(rec: KeyRecord) {
    this.keys.set(rec.hash, rec);
    this.flush();
  }
  async remove(id: string) {
    const rec = [...this.keys.values()].find((r) => r.id === id);
    if (!rec) return false;
    this.keys.delete(rec.hash);
    this.flush();
    return true;
  }
  async list() {
    return [...this.keys.values()];
  }
  // Write to a temp file and rename, so a crash mid-write never loses the store.
  private flush() {
    fs.mkdirSync(path.dirname(this.file), { recursive: true });
    const tmp = `${this.file}.${process.pid}.tmp`;
    fs.writeFileSync(tmp, JSON.stringify([...this.keys.values()], null, 2), { mode: 0o600 });
    fs.renameSync(tmp, this.file);
  }
}

export class RedisKeyStore implements KeyStore {
  constructor(private readonly redis: RedisClientType, private readonly hashName = 'uua:keys') {}
  async find(hash: string) {
    const raw = await this.redis.hGet(this.hashName, hash);
    if (!raw) return undefined;
    const rec = JSON.parse(raw) as KeyRecord;
    return sameHash(rec.hash, hash) ? rec : undefined;
  }
  async save(rec: KeyRecord) {
    await this.redis.hSet(this.hashName, rec.hash, JSON.stringify(rec));
  }
  async remove(id: string) {
    const rec = (await this.list()).find((r) => r.id === id);
    if (!rec) return false;
    await this.redis.hDel(this.hashName, rec.hash);
    return true;
  }
  async list() {
    return Object.values(await this.redis.hGetAll(this.hashName)).map((v) => JSON.parse(v) as KeyRecord);
  }
}
