// What the two quota alerts share (quota-warning.ts at 80% of the allowance, quota-exhausted.ts at 100%):
// the figures, the links to the usage page and to the switch on /account that turns them off.
import { html } from '../../../engine/html.js';
import { button, frame, text, utc, type Template } from './message.js';

export interface QuotaData {
  name: string;
  plan: string;
  limit: number;
  used: number;
  /** When the window resets, as an ISO time. */
  resetAt: string;
}

export const quotaMessage =
  (exhausted: boolean): Template<QuotaData> =>
  (d, site) => {
    const usage = `${site.publicUrl}/dashboard/usage`;
    const settings = `${site.publicUrl}/account#alerts`;
    const pct = Math.min(100, Math.floor((d.used / Math.max(1, d.limit)) * 100));
    const heading = exhausted ? 'Your API allowance is used up' : `You have used ${pct}% of your API allowance`;
    const what = exhausted
      ? `Your ${d.plan} plan's allowance of ${d.limit} requests is used up: calls are refused (HTTP 429) until it resets at ${utc(d.resetAt)}.`
      : `Your ${d.plan} plan has used ${d.used} of its ${d.limit} requests in the current window, which resets at ${utc(d.resetAt)}.`;
    const why = `You get this message because quota alerts are on for your ${site.serviceName} account. Turn them off on your account page: ${settings}`;
    return {
      subject: `${site.serviceName}: ${exhausted ? 'your API allowance is used up' : `${pct}% of your API allowance used`}`,
      text: text([`Hello ${d.name},`, what, `See your usage: ${usage}`], why, site),
      html: frame(site, heading, html`<p>Hello ${d.name},</p><p>${what}</p>${button(usage, 'See my usage')}`, why),
    };
  };
