// Sent to the new address of an email change: the change happens only when this link is used.
import { html } from '../../../engine/html.js';
import { button, frame, text, type Template } from './message.js';

export interface EmailChangeConfirmData {
  name: string;
  link: string;
  hours: number;
}

export const emailChangeConfirm: Template<EmailChangeConfirmData> = (d, site) => {
  const why = `You get this message because someone asked to move a ${site.serviceName} account to this address. If it was not you, ignore it: nothing changes without this link.`;
  return {
    subject: `Confirm your new email address for ${site.serviceName}`,
    text: text(
      [`Hello ${d.name},`, `Open this link to make this your account's email address (it works once, for ${d.hours} hours):`, d.link],
      why,
      site,
    ),
    html: frame(
      site,
      'Confirm your new email address',
      html`<p>Hello ${d.name},</p>
<p>Use the link below to make this your account's email address. It works once, for ${d.hours} hours.</p>
${button(d.link, 'Confirm this address')}`,
      why,
    ),
  };
};
