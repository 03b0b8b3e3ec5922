// A subscription's payment failed (Stripe's invoice.payment_failed): the plan is kept while Stripe retries,
// and the owner is asked to update the card in the billing portal before the retries run out.
import { html } from '../../../engine/html.js';
import { button, frame, text, utc, type Template } from './message.js';

export interface PaymentFailedData {
  name: string;
  /** The plan paid for, as the pages name it. */
  plan: string;
  /** Stripe's next attempt, when it plans one. */
  nextRetryAt?: string;
  /** Stripe's page of the unpaid invoice, where it can be paid at once. */
  invoiceUrl?: string;
}

export const paymentFailed: Template<PaymentFailedData> = (d, site) => {
  const account = `${site.publicUrl}/account#billing`;
  const why = `You get this message because you pay for the ${d.plan} plan of your ${site.serviceName} account.`;
  const kept = `The payment for your ${d.plan} plan failed. Your plan stays as it is while the payment is tried again${d.nextRetryAt ? ` (next attempt: ${utc(d.nextRetryAt)})` : ''}; if every attempt fails, the subscription ends and your account returns to the Free plan.`;
  const act = 'Update your card, or pay the invoice, from your account page: "Manage billing" opens the billing portal.';
  return {
    subject: `Your payment for ${d.plan} failed`,
    text: text(
      [`Hello ${d.name},`, kept, act, ...(d.invoiceUrl ? [`The invoice: ${d.invoiceUrl}`] : []), `Your account: ${account}`],
      why,
      site,
    ),
    html: frame(
      site,
      'Your payment failed',
      html`<p>Hello ${d.name},</p>
<p>${kept}</p>
<p>${act}</p>
${d.invoiceUrl ? html`<p><a href="${d.invoiceUrl}">See the invoice</a></p>` : ''}
${button(account, 'Open my account')}`,
      why,
    ),
  };
};
