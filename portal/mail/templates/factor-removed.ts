// A notice when a second factor is removed from the account, by its owner or by an administrator's reset
// (the way back in for someone who lost theirs): a removal its owner did not make weakens the account.
import { html } from '../../../engine/html.js';
import { button, frame, text, utc, type Template } from './message.js';

export interface FactorRemovedData {
  name: string;
  /** What was removed, as the page names it: "your authenticator app", "every sign-in factor". */
  factor: string;
  /** An administrator reset the account's factors. */
  byAdmin: boolean;
  /** When, as an ISO time. */
  at: string;
}

export const factorRemoved: Template<FactorRemovedData> = (d, site) => {
  const page = `${site.publicUrl}/account/two-factor`;
  const why = `You get this message whenever a sign-in factor of your ${site.serviceName} account changes.`;
  const who = d.byAdmin ? 'An administrator of the service removed' : 'Someone signed in to your account removed';
  return {
    subject: `A sign-in factor was removed from your ${site.serviceName} account`,
    text: text(
      [
        `Hello ${d.name},`,
        `${who} ${d.factor} at ${utc(d.at)}.`,
        `If you did not ask for this, change your password and set up your factors again at ${page}`,
      ],
      why,
      site,
    ),
    html: frame(
      site,
      'A sign-in factor was removed',
      html`<p>Hello ${d.name},</p>
<p>${who} <strong>${d.factor}</strong> at ${utc(d.at)}.</p>
<p>If you did not ask for this, change your password and set up your factors again.</p>
${button(page, 'Open my two-factor sign-in')}`,
      why,
    ),
  };
};
