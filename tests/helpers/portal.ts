// Driving the portal's forms as a browser would: a cookie jar per visitor (supertest's agent), the CSRF
// token read from the form's hidden field, and the session cookie read from Set-Cookie.
import request from 'supertest';
import type { TestApp } from './app.js';

export type Agent = ReturnType<typeof request.agent>;
type Res = Awaited<ReturnType<Agent['get']>>;

export const csrfOf = (page: string): string => {
  const m = /name="csrf" value="([^"]*)"/.exec(page);
  if (!m) throw new Error('no CSRF field on the page');
  return m[1];
};

/** The uua_session value a response set, if any. */
export function sessionCookie(res: Res): string | undefined {
  const cookies = ([] as string[]).concat(res.headers['set-cookie'] ?? []);
  const c = cookies.find((s) => s.startsWith('uua_session=') && !/Max-Age=0/.test(s));
  return c ? c.slice('uua_session='.length).split(';')[0] : undefined;
}

/** GETs a form page and posts `fields` to `action` with its CSRF token. */
export async function submit(
  agent: Agent,
  pagePath: string,
  action: string,
  fields: Record<string, string>,
  headers: Record<string, string> = {},
): Promise<Res> {
  const page = await agent.get(pagePath).set(headers);
  return agent
    .post(action)
    .set(headers)
    .type('form')
    .send({ csrf: csrfOf(page.text), ...fields });
}

export const signUp = (agent: Agent, email: string, password: string, name = 'Test User', invite?: string) =>
  submit(agent, invite ? `/signup?invite=${invite}` : '/signup', '/signup', { email, name, password, ...(invite ? { invite } : {}) });

export const signIn = (agent: Agent, email: string, password: string, headers: Record<string, string> = {}) =>
  submit(agent, '/login', '/login', { email, password }, headers);

export const signOut = (agent: Agent) => submit(agent, '/account', '/logout', {});

export const visitor = (t: TestApp) => request.agent(t.app);
