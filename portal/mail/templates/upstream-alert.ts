// An operator alert (features/health/alerts.ts): an upstream's circuit breaker opened or closed, or an
// endpoint's probe failed several times in a row or recovered. Sent to ALERT_EMAIL (else ADMIN_EMAIL).
import { html } from '../../../engine/html.js';
import { button, frame, text, type Template } from './message.js';

export interface UpstreamAlertData {
  /** Whom it greets (the admin's name, else "operator"). */
  name: string;
  title: string;
  detail: string;
}

export const upstreamAlert: Template<UpstreamAlertData> = (d, site) => {
  const status = `${site.publicUrl}/status`;
  const why = `You get this message as the operator of ${site.serviceName} (ALERT_EMAIL).`;
  return {
    subject: `[${site.serviceName}] ${d.title}`,
    text: text([`Hello ${d.name},`, d.title, d.detail, `The status page: ${status}`], why, site),
    html: frame(
      site,
      d.title,
      html`<p>Hello ${d.name},</p>
<p>${d.detail}</p>${button(status, 'Open the status page')}`,
      why,
    ),
  };
};
