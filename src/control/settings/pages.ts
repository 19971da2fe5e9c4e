import type { ApiKeySummary, ProviderAccountRow, Tenant, WebhookEndpointRow } from '../../db/index.ts';
import { html, type SafeHtml } from '../../html/index.ts';
import { presentProviderAccount } from '../../provider-accounts/index.ts';
import { logoPath, SETTING_FIELDS, type SettingField } from '../../tenants/index.ts';
import { csrfField, formatDateTime, type PageContext, page, tenantChooser } from '../shell/index.ts';
import { TODAY_MESSAGES } from '../today/index.ts';
import { SETTINGS_MESSAGES } from './words.ts';

export function keysPage(
  ctx: PageContext,
  p: {
    tenant: Tenant;
    keys: readonly ApiKeySummary[];
    tenants: readonly Tenant[];
    newKey?: { prefix: string; key: string };
  },
): string {
  const { m } = ctx;
  const w = SETTINGS_MESSAGES[ctx.language];
  const t = p.tenant;
  const when = (d: Date | null) => (d ? formatDateTime(d, ctx) : w.never);
  const keyForm = (k: ApiKeySummary, action: 'disable' | 'enable' | 'revoke', label: string, danger = false) =>
    html`<form method="${action === 'revoke' ? 'get' : 'post'}" action="/control/keys/${k.prefix}/${action === 'revoke' ? 'confirm-revoke' : action}">
${action === 'revoke' ? '' : csrfField(ctx)}<input type="hidden" name="tenant" value="${t.id}">
<button type="submit" class="${danger ? 'danger' : 'secondary'}">${label}</button></form>`;
  const rows = p.keys.map(
    (
      k,
    ) => html`<tr><td data-label="${w.prefix}"><code>${k.prefix}</code></td><td data-label="${w.label}">${k.label}</td>
<td data-label="${m.status}"><span class="status ${k.status}">${w.keyStatus[k.status] ?? k.status}</span></td>
<td data-label="${m.created}">${formatDateTime(k.created_at, ctx)}</td><td data-label="${w.lastUsed}">${when(k.last_used_at)}</td><td data-label="${w.expires}">${when(k.expires_at)}</td>
<td data-label="${m.actions}"><div class="buttons">${k.status === 'active' ? keyForm(k, 'disable', m.disable) : ''}${k.status === 'disabled' ? keyForm(k, 'enable', m.enable) : ''}${k.status !== 'revoked' ? keyForm(k, 'revoke', w.revoke, true) : ''}</div></td></tr>`,
  );
  return page(ctx, {
    title: w.keys,
    current: 'keys',
    times: true,
    body: html`<h1>${w.keys} · ${t.name}</h1>
${tenantChooser(ctx, '/control/keys', p.tenants, t.id)}
${
  p.newKey
    ? html`<section class="card" aria-labelledby="new-key-h"><h2 id="new-key-h">${w.newKeyTitle}</h2>
<p>${w.newKeyText}</p>
<label for="new-key">${w.keys} ${p.newKey.prefix}</label>
<input id="new-key" class="key" readonly value="${p.newKey.key}">
<p><button type="button" class="secondary" data-copy="new-key">${m.copy}</button></p></section>`
    : ''
}
<section class="card">
${
  p.keys.length === 0
    ? html`<p>${w.noKeys}</p>`
    : html`<div class="table-wrap" tabindex="0"><table><caption>${w.keys}</caption>
<thead><tr><th scope="col">${w.prefix}</th><th scope="col">${w.label}</th><th scope="col">${m.status}</th><th scope="col">${m.created}</th>
<th scope="col">${w.lastUsed}</th><th scope="col">${w.expires}</th><th scope="col">${m.actions}</th></tr></thead>
<tbody>${rows}</tbody></table></div>`
}
</section>
<section class="card" aria-labelledby="add-key-h"><h2 id="add-key-h">${w.addKey}</h2>
<form method="post" action="/control/keys">${csrfField(ctx)}<input type="hidden" name="tenant" value="${t.id}">
<div class="field"><label for="key-label">${w.label}</label><input id="key-label" name="label" required maxlength="100"></div>
<div class="field"><label for="key-expiry">${w.expiryOptional}</label><input id="key-expiry" name="expires_at" type="date"></div>
<button type="submit">${m.create}</button></form></section>`,
  });
}

export function confirmRevokePage(ctx: PageContext, k: ApiKeySummary): string {
  const { m } = ctx;
  const w = SETTINGS_MESSAGES[ctx.language];
  return page(ctx, {
    title: m.confirmTitle,
    current: 'keys',
    body: html`<section class="card narrow" aria-labelledby="confirm-h"><h1 id="confirm-h">${m.confirmTitle}</h1>
<p class="confirm">${w.confirmRevoke(`${k.prefix} (${k.label})`)}</p>
<form method="post" action="/control/keys/${k.prefix}/revoke">${csrfField(ctx)}<input type="hidden" name="tenant" value="${k.tenant_id}">
<div class="buttons"><button type="submit" class="danger">${w.revoke}</button>
<a href="/control/keys?tenant=${k.tenant_id}">${m.back}</a></div></form></section>`,
  });
}

export function settingsPage(
  ctx: PageContext,
  p: {
    tenant: Tenant;
    tenants: readonly Tenant[];
    values?: Record<string, string | boolean>;
    problems?: Record<string, string>;
    logoProblem?: string;
    /** The tenant's webhook endpoints: a disabled or failing one is announced at the top. */
    webhooks?: readonly WebhookEndpointRow[];
    /** The tenant's payment provider account, shown read-only (set with the command line). */
    providerAccount?: ProviderAccountRow;
    /** The hotel's Apaleo connection (src/control/pms). */
    pms?: SafeHtml;
    /** Where the instance is reached: a Stripe account's webhook address. */
    publicBaseUrl?: string;
    /** What a hotel with no account of its own pays through (PAYMENT_PROVIDER): the sandbox, or nothing. */
    instanceProvider?: string;
  },
): string {
  const { m } = ctx;
  const w = SETTINGS_MESSAGES[ctx.language];
  const current = p.tenant as unknown as Record<string, unknown>;
  const fieldHtml = (f: SettingField) => {
    const id = `s-${f.name}`;
    const label = w.settingLabels[f.name] ?? f.name;
    const problem = p.problems?.[f.name];
    const given = p.values?.[f.name];
    const value = given !== undefined ? given : current[f.name];
    const described = problem ? html` aria-invalid="true" aria-describedby="${id}-problem"` : '';
    const problemLine = problem ? html`<p id="${id}-problem" class="problem">${problem}</p>` : '';
    if (f.kind === 'boolean') {
      return html`<div class="field check"><label for="${id}"><input id="${id}" type="checkbox" name="${f.name}" value="on"${value === true || value === 'on' ? html` checked` : ''}> ${label}</label>${problemLine}</div>`;
    }
    const shown = value === null || value === undefined ? '' : String(value);
    if (f.multiline) {
      return html`<div class="field"><label for="${id}">${label}</label>
<textarea id="${id}" name="${f.name}" rows="3" maxlength="${f.max ?? 300}"${described}>${shown}</textarea>${problemLine}</div>`;
    }
    if (f.kind === 'language') {
      // Each language named in itself, as the language switch does.
      const names: [string, string][] = [
        ['en', 'English'],
        ['fr', 'Français'],
        ['de', 'Deutsch'],
      ];
      return html`<div class="field"><label for="${id}">${label}</label>
<select id="${id}" name="${f.name}"${described}>${names.map(([code, name]) => html`<option value="${code}" lang="${code}"${code === shown ? html` selected` : ''}>${name}</option>`)}</select>${problemLine}</div>`;
    }
    const type = INPUT_TYPES[f.kind] ?? 'text';
    const required = f.kind === 'text' && !f.nullable ? html` required maxlength="${f.max ?? 200}"` : '';
    return html`<div class="field"><label for="${id}">${label}</label>
<input id="${id}" name="${f.name}" type="${type}"${f.kind === 'integer' ? html` inputmode="numeric"` : ''}${f.kind === 'phone' ? html` autocomplete="tel"` : ''} value="${shown}"${required}${described}>${problemLine}</div>`;
  };
  const fields = SETTING_FIELDS.filter((f) => !f.guestPage && !f.security && !f.dayPlan).map(fieldHtml);
  const dayPlanFields = SETTING_FIELDS.filter((f) => f.dayPlan).map(fieldHtml);
  const guestFields = SETTING_FIELDS.filter((f) => f.guestPage).map(fieldHtml);
  const securityFields = SETTING_FIELDS.filter((f) => f.security).map(fieldHtml);
  return page(ctx, {
    title: w.settings,
    current: 'settings',
    body: html`<h1>${w.settings} · ${p.tenant.name}</h1>
${tenantChooser(ctx, '/control/settings', p.tenants, p.tenant.id)}
${webhookNotices(ctx, p.webhooks ?? [])}
${p.problems ? html`<p class="flash error" role="alert">${m.invalid}</p>` : ''}
<form method="post" action="/control/settings" class="card">${csrfField(ctx)}<input type="hidden" name="tenant" value="${p.tenant.id}">
<input type="hidden" name="boolean_fields" value="${SETTING_FIELDS.filter((f) => f.kind === 'boolean')
      .map((f) => f.name)
      .join(',')}">
${fields}
<fieldset><legend>${w.guestPageHeading}</legend>
<p class="hint">${w.guestPageIntro}</p>
${guestFields}
</fieldset>
<fieldset><legend>${TODAY_MESSAGES[ctx.language].settingsHeading}</legend>
<p class="hint">${TODAY_MESSAGES[ctx.language].settingsIntro}</p>
${dayPlanFields}
</fieldset>
<fieldset><legend>${w.securityHeading}</legend>
<p class="hint">${w.securityIntro}</p>
${securityFields}
</fieldset>
<button type="submit">${m.save}</button></form>
${providerAccountSection(ctx, p.providerAccount, p.publicBaseUrl ?? '', p.instanceProvider)}
${p.pms ?? ''}
${logoSection(ctx, p.tenant, p.logoProblem)}`,
  });
}

/**
 * The tenant's payment provider account, read-only: provider, mode (TEST or PRODUCTION) and
 * shop id, never a secret (the presenter has none to give). It is set on the server with
 * `payreq tenant set-provider`.
 */
function providerAccountSection(
  ctx: PageContext,
  row: ProviderAccountRow | undefined,
  publicBaseUrl: string,
  instanceProvider?: string,
): SafeHtml {
  const w = SETTINGS_MESSAGES[ctx.language];
  const account = presentProviderAccount(row, { publicBaseUrl });
  const item = (label: string, value: unknown) =>
    html`<div><dt>${label}</dt><dd>${value === null || value === undefined || value === '' ? '—' : String(value)}</dd></div>`;
  const names: Record<string, string> = { lyra: 'Lyra', stripe: 'Stripe', sandbox: w.providerSandbox };
  // No account of its own: a hotel on a sandbox instance pays through the sandbox, not "none".
  const provider =
    names[String(account.provider)] ?? (!row && instanceProvider === 'sandbox' ? w.providerSandbox : w.providerNone);
  const details =
    account.provider === 'lyra'
      ? html`${item(w.providerMode, account.mode)}${item(w.providerShopId, account.shop_id)}`
      : account.provider === 'stripe'
        ? html`${item(w.providerMode, account.mode)}${item(w.providerWebhookUrl, account.webhook_url)}${item(
            w.providerWebhookEndpoint,
            account.webhook_endpoint_created ? w.providerWebhookCreated : w.providerWebhookByOperator,
          )}`
        : '';
  return html`<section class="card" aria-labelledby="provider-account"><h2 id="provider-account">${w.providerAccount}</h2>
<dl class="summary">${item(w.providerName, provider)}${details}</dl>
<p class="hint">${w.providerAccountHint}</p></section>`;
}

/** A line for each endpoint disabled or failing: the hotel's receiver needs someone's attention. */
function webhookNotices(ctx: PageContext, endpoints: readonly WebhookEndpointRow[]): SafeHtml {
  const w = SETTINGS_MESSAGES[ctx.language];
  const lines = endpoints.flatMap((e) => {
    if (e.status === 'disabled') {
      return [html`<p>${w.webhookDisabled(e.url, formatDateTime(e.disabled_at, ctx), e.disabled_reason ?? '')}</p>`];
    }
    return e.failing_since ? [html`<p>${w.webhookFailing(e.url, formatDateTime(e.failing_since, ctx))}</p>`] : [];
  });
  return lines.length === 0 ? html`` : html`<div class="flash error" role="status">${lines}</div>`;
}

const INPUT_TYPES: Partial<Record<SettingField['kind'], string>> = { email: 'email', url: 'url', phone: 'tel' };

/** The logo: what is there, an upload (multipart, the one form that needs it) and a removal. */
function logoSection(ctx: PageContext, t: Tenant, problem?: string): SafeHtml {
  const w = SETTINGS_MESSAGES[ctx.language];
  const described = problem
    ? html` aria-invalid="true" aria-describedby="logo-problem logo-hint"`
    : html` aria-describedby="logo-hint"`;
  return html`<section class="card" aria-labelledby="logo-h"><h2 id="logo-h">${w.logo}</h2>
${
  t.logo_hash
    ? html`<p><img class="logo-preview" src="${logoPath(t.id, t.logo_hash)}" alt="${w.currentLogo}"></p>`
    : html`<p>${w.noLogo}</p>`
}
<form method="post" action="/control/settings/logo" enctype="multipart/form-data">${csrfField(ctx)}<input type="hidden" name="tenant" value="${t.id}">
<div class="field"><label for="logo-file">${w.logo}</label>
<input id="logo-file" name="logo" type="file" accept="image/png,image/jpeg,image/webp" required${described}>
<p id="logo-hint" class="hint">${w.logoHint}</p>${problem ? html`<p id="logo-problem" class="problem">${problem}</p>` : ''}</div>
<button type="submit">${w.uploadLogo}</button></form>
${
  t.logo_hash
    ? html`<form method="post" action="/control/settings/logo/remove">${csrfField(ctx)}<input type="hidden" name="tenant" value="${t.id}">
<button type="submit" class="secondary">${w.removeLogo}</button></form>`
    : ''
}
</section>`;
}
