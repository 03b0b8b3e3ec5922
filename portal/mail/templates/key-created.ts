// A notice for every personal key made on the account: a key its owner did not make means someone else
// is signed in.
import { html } from '../../../engine/html.js';
import { button, frame, text, utc, type Template } from './message.js';

export interface KeyCreatedData {
  name: string;
  keyName: string;
  /** The key's visible start and end (never the key). */
  hint?: string;
  plan: string;
  /** When, as an ISO time. */
  at: string;
}

export const keyCreated: Template<KeyCreatedData> = (d, site) => {
  const keys = `${site.publicUrl}/dashboard`;
  const which = d.hint ? `"${d.keyName}" (${d.hint})` : `"${d.keyName}"`;
  const why = `You get this message for every key made on your ${site.serviceName} account.`;
  return {
    subject: `A new API key was created on your ${site.serviceName} account`,
    text: text(
      [
        `Hello ${d.name},`,
        `A new ${d.plan} API key ${which} was created on your account at ${utc(d.at)}.`,
        `If it was not you, revoke it on your API key page and change your password: ${keys}`,
      ],
      why,
      site,
    ),
    html: frame(
      site,
      'A new API key was created',
      html`<p>Hello ${d.name},</p>
<p>A new <strong>${d.plan}</strong> API key <strong>${d.keyName}</strong>${d.hint ? html` <code>${d.hint}</code>` : ''} was created on your account at ${utc(d.at)}.</p>
<p>If it was not you, revoke it on your API key page and change your password.</p>
${button(keys, 'Open my API keys')}`,
      why,
    ),
  };
};
