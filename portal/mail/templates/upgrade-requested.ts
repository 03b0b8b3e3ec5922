// A user asks for a higher plan (accounts/upgrades.ts): the admins are told, so the request does not wait
// for someone to happen to open /admin. Sent to every active admin (and ALERT_EMAIL).
import { html } from '../../../engine/html.js';
import { button, frame, text, type Template } from './message.js';

export interface UpgradeRequestedData {
  /** Whom it greets: the admin's name, else "operator". */
  name: string;
  /** Who asks: the account's name and address. */
  asker: string;
  email: string;
  /** The plans, as the pages name them. */
  from: string;
  to: string;
  message?: string;
}

export const upgradeRequested: Template<UpgradeRequestedData> = (d, site) => {
  const admin = `${site.publicUrl}/admin#queue-title`;
  const why = `You get this message as an administrator of ${site.serviceName}.`;
  const asks = `${d.asker} (${d.email}) asks to move from ${d.from} to ${d.to}.`;
  return {
    subject: `[${site.serviceName}] ${d.email} asks for the ${d.to} plan`,
    text: text(
      [`Hello ${d.name},`, asks, ...(d.message ? [`They wrote: ${d.message}`] : []), `Approve or decline it: ${admin}`],
      why,
      site,
    ),
    html: frame(
      site,
      `A request for the ${d.to} plan`,
      html`<p>Hello ${d.name},</p>
<p>${asks}</p>
${d.message ? html`<p>They wrote: “${d.message}”</p>` : ''}
${button(admin, 'Approve or decline it')}`,
      why,
    ),
  };
};
