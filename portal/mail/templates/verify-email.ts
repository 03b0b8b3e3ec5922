// Sent at sign-up when the service verifies addresses: the link that confirms this address is the new
// account's (the password chosen at sign-up finishes it, so a confirmation by someone else does nothing).
import { html } from '../../../engine/html.js';
import { button, frame, text, type Template } from './message.js';

// No text the person signing up chose (their name): the address is not known to be theirs, and the mail would
// carry a stranger's words to it.
export interface VerifyEmailData {
  link: string;
  hours: number;
}

export const verifyEmail: Template<VerifyEmailData> = (d, site) => {
  const why = `You get this message because someone signed up at ${site.serviceName} with this address. If it was not you, ignore it: no account is opened without this link.`;
  return {
    subject: `Confirm your email address for ${site.serviceName}`,
    text: text(
      [
        'Hello,',
        `Open this link to confirm your email address and finish creating your account (it works once, for ${d.hours} hours):`,
        d.link,
        'You will be asked for the password you chose at sign-up.',
      ],
      why,
      site,
    ),
    html: frame(
      site,
      'Confirm your email address',
      html`<p>Hello,</p>
<p>Confirm your email address to finish creating your account. The link works once, for ${d.hours} hours; you will be asked for the password you chose at sign-up.</p>
${button(d.link, 'Confirm my address')}`,
      why,
    ),
  };
};
