// Sent instead of a confirmation when someone signs up with an address that has an account: its owner
// learns of it and is pointed to sign-in and reset, while the sign-up page answers as for a new address.
import { html } from '../../../engine/html.js';
import { button, frame, text, type Template } from './message.js';

// No name: the account may be an unconfirmed one, whose name whoever signed it up chose.
export type SignupExistingData = Record<string, never>;

export const signupExisting: Template<SignupExistingData> = (d, site) => {
  const login = `${site.publicUrl}/login`;
  const reset = `${site.publicUrl}/login/forgot`;
  const why = `You get this message because this address is the one of your ${site.serviceName} account.`;
  return {
    subject: `Someone tried to sign up at ${site.serviceName} with your address`,
    text: text(
      [
        'Hello,',
        'Someone tried to create an account with this email address, which has an account already. No new account was made.',
        `If it was you: sign in at ${login}, or choose a new password if you forgot it: ${reset}`,
        'If it was not you, there is nothing to do.',
      ],
      why,
      site,
    ),
    html: frame(
      site,
      'Someone tried to sign up with your address',
      html`<p>Hello,</p>
<p>Someone tried to create an account with this email address, which has an account already. No new account was made.</p>
<p>If it was you, sign in, or <a href="${reset}">choose a new password</a> if you forgot it. If it was not you, there is nothing to do.</p>
${button(login, 'Sign in')}`,
      why,
    ),
  };
};
