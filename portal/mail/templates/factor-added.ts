// A notice when a second factor is added to the account: a factor its owner did not add means someone
// else is signed in, and can now sign in without the owner's phone or passkey.
import { html } from '../../../engine/html.js';
import { button, frame, text, utc, type Template } from './message.js';

export interface FactorAddedData {
  name: string;
  /** What was added, as the page names it: "an authenticator app", "the passkey “Laptop”". */
  factor: string;
  /** When, as an ISO time. */
  at: string;
}

export const factorAdded: Template<FactorAddedData> = (d, site) => {
  const page = `${site.publicUrl}/account/two-factor`;
  const why = `You get this message whenever a sign-in factor of your ${site.serviceName} account changes.`;
  return {
    subject: `A sign-in factor was added to your ${site.serviceName} account`,
    text: text(
      [
        `Hello ${d.name},`,
        `${d.factor[0].toUpperCase()}${d.factor.slice(1)} was added to your account's two-factor sign-in at ${utc(d.at)}.`,
        `If it was not you, someone else is signed in to your account: remove it and change your password at ${page}`,
      ],
      why,
      site,
    ),
    html: frame(
      site,
      'A sign-in factor was added',
      html`<p>Hello ${d.name},</p>
<p><strong>${d.factor[0].toUpperCase()}${d.factor.slice(1)}</strong> was added to your account's two-factor sign-in at ${utc(d.at)}.</p>
<p>If it was not you, someone else is signed in to your account: remove it and change your password.</p>
${button(page, 'Open my two-factor sign-in')}`,
      why,
    ),
  };
};
