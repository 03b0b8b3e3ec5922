import { Readable } from 'node:stream';
import zlib from 'node:zlib';
import { BodyError, readBody } from '../engine/read-body.js';

const from = (...chunks: Buffer[]) => Readable.from(chunks, { objectMode: false });
const text = 'the quick brown fox '.repeat(100);

async function bodyError(p: Promise<unknown>): Promise<BodyError> {
  try {
    await p;
  } catch (err) {
    expect(err).toBeInstanceOf(BodyError);
    return err as BodyError;
  }
  throw new Error('expected readBody to fail');
}

describe('readBody', () => {
  test('plain, in several chunks', async () => {
    const b = Buffer.from(text);
    expect((await readBody(from(b.subarray(0, 10), b.subarray(10)), undefined, 1e6)).toString()).toBe(text);
  });

  test.each([
    ['gzip', zlib.gzipSync],
    ['x-gzip', zlib.gzipSync],
    ['deflate', zlib.deflateSync],
    ['br', zlib.brotliCompressSync],
  ])('%s is decoded', async (encoding, zip) => {
    expect((await readBody(from(zip(Buffer.from(text))), ` ${encoding.toUpperCase()} `, 1e6)).toString()).toBe(text);
  });

  test('the limit counts decoded bytes: a small bomb stops at it', async () => {
    const bomb = zlib.gzipSync(Buffer.alloc(8 * 1024 * 1024));
    expect(bomb.length).toBeLessThan(64 * 1024);
    expect((await bodyError(readBody(from(bomb), 'gzip', 1024 * 1024))).reason).toBe('too-large');
    expect((await bodyError(readBody(from(Buffer.alloc(2000)), undefined, 1000))).reason).toBe('too-large');
  });

  test('a body that does not decode is corrupt; a failed transfer keeps its own error', async () => {
    expect((await bodyError(readBody(from(Buffer.from('not gzip at all')), 'gzip', 1e6))).reason).toBe('corrupt');
    const reset = new Readable({ read() { this.destroy(Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' })); } });
    await expect(readBody(reset, 'gzip', 1e6)).rejects.toMatchObject({ code: 'ECONNRESET' });
  });
});
