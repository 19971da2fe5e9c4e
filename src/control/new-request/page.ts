import type { Tenant } from '../../db/index.ts';
import { CURRENCIES, type FieldIssue, REQUEST_TYPES } from '../../domain/index.ts';
import { html, type SafeHtml } from '../../html/index.ts';
import { csrfField, type PageContext, page } from '../shell/index.ts';
import { NEW_REQUEST_MESSAGES } from './words.ts';

/** The form as typed: every value a string, kept to show the form again with its errors. */
export type NewRequestForm = Partial<
  Record<
    | 'tenant'
    | 'request_type'
    | 'amount'
    | 'currency'
    | 'language'
    | 'guest_first_name'
    | 'guest_last_name'
    | 'guest_email'
    | 'guest_phone'
    | 'reservation_ref'
    | 'checkin'
    | 'checkout'
    | 'room_type',
    string
  >
>;

/** Where each of the API's field names is typed on the form. */
const INPUT_OF: Record<string, keyof NewRequestForm> = {
  'reservation_data.checkin': 'checkin',
  'reservation_data.checkout': 'checkout',
  reservation_data: 'room_type',
};

export function formField(issue: FieldIssue): keyof NewRequestForm {
  return INPUT_OF[issue.field] ?? (issue.field as keyof NewRequestForm);
}

const GUEST_LANGUAGES = [
  ['fr', 'Français'],
  ['en', 'English'],
  ['de', 'Deutsch'],
] as const;

/**
 * New request: the fields of the API's create, for a booking taken by phone or a link sent by
 * text message. Errors are the API's own, shown beside their fields.
 */
export function newRequestPage(
  ctx: PageContext,
  p: {
    form: NewRequestForm;
    errors: readonly FieldIssue[];
    tenants: readonly Tenant[];
    /** "From an Apaleo reservation", for a hotel connected to Apaleo (src/control/pms). */
    prefill?: SafeHtml;
  },
): string {
  const { m } = ctx;
  const w = NEW_REQUEST_MESSAGES[ctx.language];
  const f = p.form;
  // In the page's language: the API's issues carry a stable code; the message is the fallback.
  const say = (e: FieldIssue) =>
    e.code === 'choose_tenant' ? w.chooseTenant : (w.fieldIssues[e.code ?? ''] ?? e.message);
  const errorOf = (name: keyof NewRequestForm) =>
    p.errors
      .filter((e) => formField(e) === name)
      .map(say)
      .join('; ');
  const input = (name: keyof NewRequestForm, label: string, attrs: SafeHtml = html``, type = 'text') => {
    const error = errorOf(name);
    return html`<div class="field"><label for="n-${name}">${label}</label>
<input id="n-${name}" name="${name}" type="${type}" value="${f[name] ?? ''}"${attrs}${error ? html` aria-invalid="true" aria-describedby="n-${name}-error"` : ''}>
${error ? html`<p id="n-${name}-error" class="error-text">${error}</p>` : ''}</div>`;
  };
  const select = (name: keyof NewRequestForm, label: string, options: readonly (readonly [string, string])[]) =>
    html`<div class="field"><label for="n-${name}">${label}</label><select id="n-${name}" name="${name}">${options.map(
      ([value, text]) => html`<option value="${value}"${f[name] === value ? html` selected` : ''}>${text}</option>`,
    )}</select>${errorOf(name) ? html`<p class="error-text">${errorOf(name)}</p>` : ''}</div>`;
  const superuser = ctx.user?.tenantId === null;
  return page(ctx, {
    title: m.newRequest,
    current: 'requests',
    body: html`<p><a href="/control/requests">${m.back}</a></p>
<h1>${m.newRequest}</h1>
${
  p.errors.length > 0
    ? html`<div class="flash error" role="alert"><p>${w.fixFields}</p>${superuser ? '' : p.errors.filter((e) => formField(e) === 'tenant').map((e) => html`<p>${say(e)}</p>`)}</div>`
    : ''
}
${p.prefill ?? ''}
<section class="card narrow"><p>${w.newRequestIntro}</p>
<form method="post" action="/control/requests/new" novalidate>${csrfField(ctx)}
${
  superuser
    ? select(
        'tenant',
        m.tenant,
        p.tenants.map((t) => [t.id, t.name] as const),
      )
    : ''
}
${select(
  'request_type',
  m.type,
  REQUEST_TYPES.map((t) => [t, m.types[t] ?? t] as const),
)}
${input('amount', m.amount, html` inputmode="decimal" autocomplete="off"`)}
${select(
  'currency',
  w.currency,
  CURRENCIES.map((c) => [c, c] as const),
)}
${input('guest_first_name', w.firstName, html` required maxlength="100" autocomplete="off"`)}
${input('guest_last_name', w.lastName, html` required maxlength="100" autocomplete="off"`)}
${input('guest_email', m.email, html` required maxlength="254" autocomplete="off"`, 'email')}
${input('guest_phone', m.phone, html` maxlength="32" autocomplete="off"`, 'tel')}
${select('language', m.guestLanguage, GUEST_LANGUAGES)}
${input('reservation_ref', m.reservation, html` required maxlength="100" autocomplete="off"`)}
${input('checkin', m.checkin, html``, 'date')}
<p class="hint">${w.noHoldWarningShort}</p>
${input('checkout', w.checkout, html``, 'date')}
${input('room_type', w.roomType, html` maxlength="100"`)}
<div class="buttons"><button type="submit">${w.createRequest}</button> <a href="/control/requests">${m.back}</a></div>
</form></section>`,
  });
}
