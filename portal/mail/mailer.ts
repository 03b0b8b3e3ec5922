// Email over SMTP (nodemailer), when SMTP_URL is set: `send(kind, to, data)` renders the kind's template
// (templates/, plain text and HTML) and hands it to the SMTP server. A send never throws: a failure is
// logged and answered false, so a flow that can go on without its message (a notice, an alert, a link the
// user can ask for again) is never a 500. Each message opens its own connection (no pool to close), with
// short timeouts, and callers that answer a page do not wait for it (the time of an SMTP exchange would
// otherwise tell an existing address from a new one).
import { createRequire } from 'node:module';
import type Nodemailer from 'nodemailer';
import type { Logger } from 'pino';
import type { MailConfig } from '../../engine/config.js';
import { TEMPLATES, type MailData, type MailKind } from './templates/index.js';
import type { Message, Site } from './templates/message.js';

/** What the mailer needs of a transport: nodemailer's, or a test's. */
export interface MailTransport {
  sendMail(m: { from: string; to: string; subject: string; text: string; html: string }): Promise<unknown>;
}

export class Mailer {
  constructor(
    private readonly transport: MailTransport,
    private readonly from: string,
    private readonly site: Site,
    private readonly log: Pick<Logger, 'info' | 'warn'>,
  ) {}

  /** Sends one message; true once the SMTP server has taken it, false (logged) when it could not be. */
  async send<K extends MailKind>(kind: K, to: string, data: MailData[K]): Promise<boolean> {
    try {
      const m: Message = TEMPLATES[kind](data, this.site);
      await this.transport.sendMail({ from: this.from, to, subject: m.subject, text: m.text, html: m.html.value });
      this.log.info({ mail: kind }, 'mail: sent');
      return true;
    } catch (err) {
      this.log.warn({ mail: kind, err: (err as Error).message }, 'mail: cannot send');
      return false;
    }
  }
}

/** The portal's mailer, or undefined without SMTP_URL (no mail at all). */
export function createMailer(config: MailConfig | undefined, site: Site, log: Logger): Mailer | undefined {
  if (!config) return undefined;
  // Required only with SMTP_URL: an instance without mail never pays its load time at boot.
  const nodemailer = createRequire(import.meta.url)('nodemailer') as typeof Nodemailer;
  const transport = nodemailer.createTransport({
    host: config.host,
    port: config.port,
    secure: config.secure,
    auth: config.auth,
    connectionTimeout: 10_000,
    greetingTimeout: 10_000,
    socketTimeout: 30_000,
  });
  return new Mailer(transport, config.from, site, log);
}
