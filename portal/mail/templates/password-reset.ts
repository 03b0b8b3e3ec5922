// The link of "Forgot password?": one use, one hour. Using it signs every session of the account out.
import { html } from '../../../engine/html.js';
import { button, frame, text, type Template } from './message.js';

export interface PasswordResetData {
  name: string;
  link: string;
  minutes: number;
}

export const passwordReset: Template<PasswordResetData> = (d, site) => {
  const why = `You get this message because someone asked to reset the password of your ${site.serviceName} account. If it was not you, ignore it: your password stays as it is.`;
  return {
    subject: `Reset your ${site.serviceName} password`,
    text: text(
      [
        `Hello ${d.name},`,
        `Open this link to choose a new password (it works once, for ${d.minutes} minutes):`,
        d.link,
        'Every device signed in to your account will be signed out.',
      ],
      why,
      site,
    ),
    html: frame(
      site,
      'Reset your password',
      html`<p>Hello ${d.name},</p>
<p>Choose a new password with the link below. It works once, for ${d.minutes} minutes. Every device signed in to your account will be signed out.</p>
${button(d.link, 'Choose a new password')}`,
      why,
    ),
  };
};
