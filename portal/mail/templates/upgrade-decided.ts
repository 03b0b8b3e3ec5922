// The answer to a request for a higher plan (accounts/upgrades.ts): approved, the account is on the new
// plan from its keys' next call; declined, with the administrator's reason when one was given.
import { html } from '../../../engine/html.js';
import { button, frame, text, type Template } from './message.js';

export interface UpgradeDecidedData {
  name: string;
  /** The plan asked for, as the pages name it. */
  plan: string;
  approved: boolean;
  reason?: string;
}

export const upgradeDecided: Template<UpgradeDecidedData> = (d, site) => {
  const account = `${site.publicUrl}/account#plan`;
  const why = `You get this message because you asked for a higher plan on your ${site.serviceName} account.`;
  const outcome = d.approved
    ? `Your request for the ${d.plan} plan was approved: your account and its keys are on ${d.plan} from their next call.`
    : `Your request for the ${d.plan} plan was declined.`;
  return {
    subject: d.approved ? `Your ${site.serviceName} account is on ${d.plan} now` : `Your request for ${d.plan} was declined`,
    text: text(
      [`Hello ${d.name},`, outcome, ...(d.reason ? [`The administrator wrote: ${d.reason}`] : []), `Your account: ${account}`],
      why,
      site,
    ),
    html: frame(
      site,
      d.approved ? 'Your upgrade was approved' : 'Your upgrade request was declined',
      html`<p>Hello ${d.name},</p>
<p>${outcome}</p>
${d.reason ? html`<p>The administrator wrote: “${d.reason}”</p>` : ''}
${button(account, 'Open my account')}`,
      why,
    ),
  };
};
