// What every message shares: its parts (a subject, the plain text and the HTML), the site it speaks for,
// and the frame around the HTML. Every value reaches the HTML through the `html` tag, so a name or a key
// name a user typed is escaped there; the plain text carries values as they are.
import { html, type Safe } from '../../../engine/html.js';

export interface Site {
  serviceName: string;
  /** PUBLIC_URL: the base of every link in a message. */
  publicUrl: string;
}

export interface Message {
  subject: string;
  text: string;
  html: Safe;
}

/** A template: one kind of message from its data. */
export type Template<D> = (data: D, site: Site) => Message;

/** The HTML frame: a heading, the body, and the footer saying why the message came. */
export function frame(site: Site, heading: string, body: Safe, why: string): Safe {
  return html`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width"><title>${heading}</title></head>
<body style="margin:0;padding:24px;background:#f5f5f7;font-family:system-ui,-apple-system,'Segoe UI',Roboto,sans-serif;color:#1d1d1f;line-height:1.5">
<div style="max-width:560px;margin:0 auto;background:#fff;border-radius:8px;padding:24px">
<p style="margin:0 0 16px;color:#555;font-size:14px">${site.serviceName}</p>
<h1 style="font-size:20px;margin:0 0 16px">${heading}</h1>
${body}
<p style="margin:24px 0 0;color:#666;font-size:13px">${why}</p>
</div></body></html>`;
}

/** A link shown as a button, with the address written out below it for mail readers that hide buttons. */
export const button = (href: string, label: string) =>
  html`<p style="margin:24px 0"><a href="${href}" style="background:#0b5cd5;color:#fff;padding:10px 18px;border-radius:6px;text-decoration:none;display:inline-block">${label}</a></p>
<p style="font-size:13px;color:#555;word-break:break-all">Or open this address: <a href="${href}">${href}</a></p>`;

/** The plain-text part: paragraphs apart by blank lines, then the footer. */
export const text = (paragraphs: string[], why: string, site: Site) =>
  `${paragraphs.join('\n\n')}\n\n-- \n${why}\n${site.serviceName} · ${site.publicUrl}\n`;

/** A time as people read it in a message: "2026-11-26 14:05 UTC". */
export const utc = (iso: string) => `${iso.slice(0, 16).replace('T', ' ')} UTC`;
