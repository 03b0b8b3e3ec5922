// The bytes of one media, from the upstream's body to the caller (and to the copy being kept, MEDIA_STORE=on)
// as they arrive. The body is read no faster than the slower of the two takes it: paused while either one's
// buffer is full, undici stops reading the upstream's socket, so a stream holds a few chunks whatever the
// size of the file.
//
// Each chunk's memory is given back as soon as every sink has written it. Node reads a socket into a fresh
// ArrayBuffer per read (64 KB), which V8 frees only when a garbage collection finds it dead; streaming
// allocates little else on the JS heap, so collections are rare while bytes flow and the dead chunks between
// two of them came to tens of MB (docs/decisions/media-links.md, "Memory of the streams"). A chunk of body
// bytes alone is a view of the whole ArrayBuffer of its read, which nothing reads after us (undici hands out
// views of the socket's reads and keeps none; the socket has let go of it): detaching it frees the memory at
// once. A chunk that shares its ArrayBuffer (with the answer's head, with chunked framing) is left to the GC.
import type { ServerResponse } from 'node:http';
import type { Readable, Writable } from 'node:stream';

/** Where the chunks go: the caller's response, a copy's file. */
type Sink = Pick<Writable, 'write' | 'once'>;

type Detachable = ArrayBuffer & { transfer?: (length: number) => ArrayBuffer };

/** Frees the memory of a chunk every sink has written, when the chunk is the whole of its ArrayBuffer. */
function release(chunk: Buffer): void {
  const memory = chunk.buffer as Detachable;
  if (chunk.byteOffset !== 0 || chunk.byteLength !== memory.byteLength || typeof memory.transfer !== 'function') return;
  try {
    memory.transfer(0);
  } catch {
    // An ArrayBuffer that may not be detached: the GC frees it.
  }
}

/**
 * Streams `body` to `caller`, and to `copy` when one is kept; `counted` hears of each chunk's bytes. True when
 * every byte reached the caller; false when the caller went away or the upstream stopped, and the answer is
 * then cut, as a proxy's would be. A copy that fails is dropped, and the caller's stream goes on.
 */
export function relay(
  body: Readable,
  caller: ServerResponse,
  copy: Writable | undefined,
  counted: (bytes: number) => void,
): Promise<boolean> {
  return new Promise((resolve) => {
    const sinks: Sink[] = copy ? [caller, copy] : [caller];
    /** The sinks whose buffer is full: the body stays paused until each has drained. */
    const full = new Set<Sink>();
    let settled = false;
    const settle = (whole: boolean) => {
      if (settled) return;
      settled = true;
      body.off('data', onData);
      if (!whole) {
        body.destroy();
        caller.destroy();
      }
      resolve(whole);
    };
    const drained = (sink: Sink) => {
      full.delete(sink);
      if (full.size === 0 && !settled) body.resume();
    };
    const onData = (chunk: Buffer) => {
      counted(chunk.length);
      let writing = sinks.length;
      const written = () => {
        if (--writing === 0) release(chunk);
      };
      for (const sink of sinks) {
        if (!sink.write(chunk, written) && !full.has(sink)) {
          full.add(sink);
          sink.once('drain', () => drained(sink));
        }
      }
      if (full.size > 0) body.pause();
    };
    copy?.once('error', () => {
      sinks.splice(sinks.indexOf(copy), 1);
      drained(copy);
    });
    // The upstream stopped (cut, timed out, cancelled): a body error is always handled here, even once settled.
    body.on('error', () => settle(false));
    body.once('end', () => caller.end(() => settle(true)));
    caller.once('close', () => settle(caller.writableFinished));
    if (body.destroyed || caller.destroyed) return settle(false);
    body.on('data', onData);
  });
}
