// Polls an asynchronous check until it holds: for what lands a moment after the answer (the usage recorder
// and the counters write once a second; webhooks are delivered in the background).

/** Resolves with the first truthy answer of `check`; fails after `ms` (5 s unless told). */
export async function eventually<T>(check: () => Promise<T | undefined | false>, ms = 5000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await check();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`not seen within ${ms} ms`);
    await new Promise((ok) => setTimeout(ok, 25));
  }
}
