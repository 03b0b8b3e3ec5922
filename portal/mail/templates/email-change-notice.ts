// Sent to the old address when a change of address is asked for, so an owner whose session was taken
// hears of it before the change can be confirmed.
import { html } from '../../../engine/html.js';
import { button, frame, text, type Template } from './message.js';

export interface EmailChangeNoticeData {
  name: string;
  /** The address the account is to move to. */
  to: string;
}

export const emailChangeNotice: Template<EmailChangeNoticeData> = (d, site) => {
  const reset = `${site.publicUrl}/login/forgot`;
  const why = `You get this message because this address is the one of your ${site.serviceName} account.`;
  return {
    subject: `A change of your ${site.serviceName} email address was asked for`,
    text: text(
      [
        `Hello ${d.name},`,
        `Someone signed in to your account asked to change its email address to ${d.to}. The change happens only once a link sent to that address is used.`,
        `If it was you, there is nothing to do. If it was not, reset your password now: this signs every device out of your account.`,
        reset,
      ],
      why,
      site,
    ),
    html: frame(
      site,
      'A change of your email address was asked for',
      html`<p>Hello ${d.name},</p>
<p>Someone signed in to your account asked to change its email address to <strong>${d.to}</strong>. The change happens only once a link sent to that address is used.</p>
<p>If it was you, there is nothing to do. If it was not, reset your password now: this signs every device out of your account.</p>
${button(reset, 'Reset my password')}`,
      why,
    ),
  };
};
