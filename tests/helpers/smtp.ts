// A real SMTP server on a loopback port (the smtp-server package), every message it takes parsed with
// mailparser: what the portal sends, read back as a mail client would, text and HTML parts both. No TLS
// (loopback), any AUTH accepted when asked for and written down, so a test can see SMTP_URL's credentials.
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';
import { simpleParser, type ParsedMail } from 'mailparser';

export interface Received {
  /** The envelope's recipients, as the server was told them. */
  to: string[];
  mail: ParsedMail;
}

export interface Mailbox {
  /** smtp://127.0.0.1:<port>, for SMTP_URL. */
  url: string;
  port: number;
  received: Received[];
  /** Credentials the clients authenticated with. */
  logins: { username: string; password: string }[];
  /** The next message to `to` not taken yet (waits up to `ms`), whose subject matches `subject` when given. */
  next(to: string, subject?: RegExp, ms?: number): Promise<ParsedMail>;
  /** Messages to `to` not taken yet, without waiting. */
  waiting(to: string): Received[];
  close(): Promise<void>;
}

export async function smtpServer(): Promise<Mailbox> {
  const received: Received[] = [];
  const logins: Mailbox['logins'] = [];
  const taken = new Set<Received>();
  const server = new SMTPServer({
    authOptional: true,
    allowInsecureAuth: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onAuth(auth, _session, done) {
      logins.push({ username: auth.username ?? '', password: auth.password ?? '' });
      done(null, { user: auth.username });
    },
    onData(stream, session, done) {
      simpleParser(stream).then(
        (mail) => {
          received.push({ to: session.envelope.rcptTo.map((r) => r.address.toLowerCase()), mail });
          done();
        },
        (err: Error) => done(err),
      );
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.server.address() as AddressInfo;

  const waiting = (to: string) => received.filter((r) => !taken.has(r) && r.to.includes(to.toLowerCase()));
  return {
    url: `smtp://127.0.0.1:${port}`,
    port,
    received,
    logins,
    waiting,
    async next(to, subject, ms = 10_000) {
      const deadline = Date.now() + ms;
      for (;;) {
        const r = waiting(to).find((x) => !subject || subject.test(x.mail.subject ?? ''));
        if (r) {
          taken.add(r);
          return r.mail;
        }
        if (Date.now() > deadline) throw new Error(`no message to ${to}${subject ? ` matching ${subject}` : ''} within ${ms} ms`);
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** The first link of the message's text part under `path` (e.g. /login/reset), as a path with its query. */
export function linkIn(mail: ParsedMail, path: string): string {
  const m = new RegExp(`https?://[^\\s/]+(${path.replace(/[/?]/g, '\\$&')}[^\\s]*)`).exec(mail.text ?? '');
  if (!m) throw new Error(`no ${path} link in: ${mail.text}`);
  return m[1];
}

/** The HTML part as a string (mailparser gives false when there is none). */
export const htmlOf = (mail: ParsedMail): string => (typeof mail.html === 'string' ? mail.html : '');
