// A visitor of the portal over real HTTP, with its cookies and the forms' CSRF tokens: what the measuring
// scripts (scale.ts, request-log-scale.ts) time the pages with.
/** A visitor with its cookies, over real HTTP. */
export function browser(base: string) {
  const jar = new Map<string, string>();
  const send = async (method: string, url: string, form?: Record<string, string>) => {
    const headers: Record<string, string> = { cookie: [...jar].map(([k, v]) => `${k}=${v}`).join('; ') };
    let body: string | undefined;
    if (form) {
      headers['content-type'] = 'application/x-www-form-urlencoded';
      body = new URLSearchParams(form).toString();
    }
    const res = await fetch(base + url, { method, headers, body, redirect: 'manual' });
    for (const c of res.headers.getSetCookie()) {
      const [pair] = c.split(';');
      const eq = pair.indexOf('=');
      jar.set(pair.slice(0, eq), pair.slice(eq + 1));
    }
    const text = await res.text();
    return { status: res.status, text, bytes: Buffer.byteLength(text) };
  };
  const csrf = (page: string) => /name="csrf" value="([^"]*)"/.exec(page)?.[1] ?? '';
  return {
    get: (url: string) => send('GET', url),
    async submit(pageUrl: string, action: string, fields: Record<string, string>) {
      const page = await send('GET', pageUrl);
      return send('POST', action, { csrf: csrf(page.text), ...fields });
    },
    post: (action: string, csrfToken: string, fields: Record<string, string>) => send('POST', action, { csrf: csrfToken, ...fields }),
    csrf,
  };
}
