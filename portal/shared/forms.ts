// Form pieces the portal's pages share: labelled fields, the hidden CSRF field, and notices (errors,
// confirmations). Reading a posted field is the routes' part (portal/shared/pages.ts posted).
import { html, type Safe } from '../../engine/html.js';

export interface FieldOptions {
  label: string;
  name: string;
  type?: string;
  value?: string;
  hint?: string;
  autocomplete?: string;
  required?: boolean;
  minlength?: number;
  maxlength?: number;
  readonly?: boolean;
}

export function field(o: FieldOptions): Safe {
  const hintId = o.hint ? `${o.name}-hint` : undefined;
  return html`<label>${o.label}${o.hint ? html` <span class="hint" id="${hintId}">${o.hint}</span>` : ''}
  <input name="${o.name}" type="${o.type ?? 'text'}" value="${o.value ?? ''}"${o.autocomplete ? html` autocomplete="${o.autocomplete}"` : ''}${o.required ? html` required` : ''}${o.minlength ? html` minlength="${o.minlength}"` : ''}${o.maxlength ? html` maxlength="${o.maxlength}"` : ''}${o.readonly ? html` readonly` : ''}${hintId ? html` aria-describedby="${hintId}"` : ''}></label>`;
}

export const csrfField = (token: string | undefined) => html`<input type="hidden" name="csrf" value="${token ?? ''}">`;

export const errors = (list: string[]) =>
  list.length
    ? html`<div class="notice error" role="alert">${list.length === 1 ? list[0] : html`<ul>${list.map((e) => html`<li>${e}</li>`)}</ul>`}</div>`
    : '';

export const notice = (kind: 'ok' | 'info' | 'error', text: string | Safe) => html`<div class="notice ${kind}" role="status">${text}</div>`;
